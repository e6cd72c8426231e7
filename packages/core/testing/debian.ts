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
 * Installs a Debian package unless `check` (a shell condition) already holds; only root can.
 * Installs are serialized with flock, since test projects run in parallel and dpkg allows one at
 * a time; the condition is tested again under the lock, so a package is installed once.
 */
export function installDebianPackage(pkg: string, check: string): void {
  if (process.getuid?.() !== 0) throw new Error(`${pkg} is missing and only root can install it: apt-get install ${pkg}`);
  const script = `${check} || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${pkg}; }`;
  execFileSync('flock', ['/tmp/fxdesk-apt.lock', 'sh', '-c', script], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
}

/**
 * The path of a program a test needs, installing its Debian package first when it is missing
 * (tests set up what they use: CI and later sessions start on a fresh machine).
 */
export function ensureDebianPackage(binary: string, pkg: string = binary): string {
  const found = which(binary);
  if (found) return found;
  installDebianPackage(pkg, `command -v ${binary} >/dev/null`);
  const installed = which(binary);
  if (!installed) throw new Error(`installing ${pkg} did not provide ${binary}`);
  return installed;
}
