import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

function which(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const candidate = `${dir}/${binary}`;
    if (fs.existsSync(candidate)) return candidate;
  }
  for (const dir of ['/usr/bin', '/usr/sbin', '/bin']) if (fs.existsSync(`${dir}/${binary}`)) return `${dir}/${binary}`;
  return undefined;
}

/**
 * The path of a program a test needs, installing its Debian package first when it is missing
 * (tests set up what they use: CI and later sessions start on a fresh machine). Installs are
 * serialized with flock, since test projects run in parallel and dpkg allows one at a time.
 */
export function ensureDebianPackage(binary: string, pkg: string = binary): string {
  const found = which(binary);
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error(`${binary} is missing and only root can install ${pkg}: apt-get install ${pkg}`);
  const script = `command -v ${binary} >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${pkg}; }`;
  execFileSync('flock', ['/tmp/fxdesk-apt.lock', 'sh', '-c', script], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  const installed = which(binary);
  if (!installed) throw new Error(`installing ${pkg} did not provide ${binary}`);
  return installed;
}
