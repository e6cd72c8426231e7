/**
 * Rendering cost: how long each channel's renderer takes on one message, for inputs shaped to
 * make a careless renderer super-linear (deep nesting, unclosed constructs, long runs), at the
 * size limit (65,536 characters) beside the same shape at a quarter of it, measured in the same
 * run: a linear renderer takes about 4× as long at 4× the size, a quadratic one about 16×.
 * Telegram renders the whole message and splits it into parts of 4,096 visible characters.
 *
 *   npm run bench -- notification render [runs]   (default 15; each figure is the best run)
 *
 * Not a test: nothing here fails on a slow machine. The tests prove the structural half (no tag
 * is ever open twice, so the open-tag stack stays a handful deep) without a clock.
 */
import { performance } from 'node:perf_hooks';
import { telegramParts } from '../../services/notification/src/channels/telegram-split.js';
import { emailParts, plainText } from '../../services/notification/src/render.js';

const RUNS = Number(process.argv[3] ?? 15);
const LIMIT = 65_536;

/** Repeats `unit` to about `size` characters. */
const fill = (unit: string, size: number): string => unit.repeat(Math.floor(size / unit.length));

const shapes: Array<[string, (size: number) => string]> = [
  ['flat message (baseline)', (size) => fill('EUR_USD long filled at <b>1.0850</b>. ', size)],
  ['nested <b> (the audit case)', (size) => fill('<b>', size)],
  ['nested b, i, u, s, spoiler', (size) => fill('<b><i><u><s><span class="tg-spoiler">', size)],
  ['<b> opens, then </i> closes', (size) => fill('<b>', size / 2) + fill('</i>', size / 2)],
  ['<b> </b> around single spaces', (size) => fill('<b> </b>', size)],
  ['unterminated <! declarations', (size) => fill('<!', size)],
  ['unterminated tag, long name', (size) => `<a${'b'.repeat(size - 2)}`],
  ['<pre> with a run of newlines', (size) => `<pre>${'\n'.repeat(size - 12)}x</pre>`],
  ['<pre> with a run of spaces', (size) => `<pre>${' '.repeat(size - 12)}x</pre>`],
  ['table cells (a run of tabs)', (size) => `${fill('</td>', size - 1)}x`],
  ['entities', (size) => fill('&amp;', size)],
];

const renderers: Array<[string, (message: string) => unknown]> = [
  ['Telegram (render, then split)', (message) => telegramParts({ message, contentType: 'html', subject: 'Fill' })],
  ['SMS / WhatsApp', (message) => plainText({ message, contentType: 'html', subject: 'Fill' }, 1600)],
  ['email', (message) => emailParts({ message, contentType: 'html' })],
];

let sink = 0;

/** Best of RUNS renders, in ms (interference on a shared machine only ever slows a run down). */
function bestMs(render: (message: string) => unknown, message: string): number {
  sink += JSON.stringify(render(message)).length; // warm-up
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < RUNS; r++) {
    const started = performance.now();
    sink += JSON.stringify(render(message)).length;
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

process.stdout.write(`rendering cost, ms per message, best of ${RUNS} runs; linear: about 4× the time at 4× the size, quadratic: 16×\n\n`);
let worst = { ms: 0, what: '' };
for (const [renderer, render] of renderers) {
  process.stdout.write(
    `${renderer}\n${'input'.padEnd(32)}${`${LIMIT / 4} chars`.padStart(14)}${`${LIMIT} chars`.padStart(14)}${'4× size: time ×'.padStart(17)}\n`,
  );
  for (const [shape, make] of shapes) {
    const small = bestMs(render, make(LIMIT / 4));
    const large = bestMs(render, make(LIMIT));
    if (large > worst.ms) worst = { ms: large, what: `${renderer}, ${shape}` };
    process.stdout.write(`${shape.padEnd(32)}${small.toFixed(2).padStart(14)}${large.toFixed(2).padStart(14)}${(large / small).toFixed(1).padStart(17)}\n`);
  }
  process.stdout.write('\n');
}
process.stdout.write(`slowest message at the size limit: ${worst.ms.toFixed(2)} ms (${worst.what})\n(checksum ${sink})\n`);
