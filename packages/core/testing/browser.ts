import { chromium, type Browser, type Page } from 'playwright-core';
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

/**
 * Pixels of the colour `hex` (`#rrggbb`) on the canvases of the chart under `selector`, in all
 * its panes or only its first (price) pane: how a browser test sees that a series was painted.
 */
export async function paintedPixels(page: Page, selector: string, hex: string, options: { pricePaneOnly?: boolean } = {}): Promise<number> {
  const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return page.locator(selector).evaluate(
    (chart, { rgb, pricePaneOnly }) => {
      const panes = [...chart.querySelectorAll('tr')].filter((tr) => tr.querySelector('canvas') && tr.offsetHeight > 60);
      const canvases = pricePaneOnly ? panes.slice(0, 1).flatMap((tr) => [...tr.querySelectorAll('canvas')]) : [...chart.querySelectorAll('canvas')];
      let count = 0;
      for (const canvas of canvases) {
        const { data } = (canvas.getContext('2d') as CanvasRenderingContext2D).getImageData(0, 0, canvas.width, canvas.height);
        for (let i = 0; i < data.length; i += 4) if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) count++;
      }
      return count;
    },
    { rgb, pricePaneOnly: options.pricePaneOnly === true },
  );
}
