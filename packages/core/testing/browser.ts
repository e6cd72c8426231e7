import { chromium, type Browser } from 'playwright-core';
import { ensureDebianPackage } from './debian.js';

/**
 * Debian's Chromium, headless, driven by playwright-core. The flags keep it off the network it
 * cannot reach (background services would otherwise retry their requests at every start).
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = ensureDebianPackage('chromium');
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
