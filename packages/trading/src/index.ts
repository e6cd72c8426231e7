/**
 * @fxdesk/trading: the desk's pure trading units, below the services (no I/O, no clock): the fill
 * model of the paper account and the lab (fills.ts), the exit rules every mode runs at a candle's
 * close (exits.ts), one pair's position from signal to exit (pair-position.ts), sizing by risk
 * from the venue's volume terms (sizing.ts), and the limits and kill switch before every entry
 * (risk.ts). README.md says how the live leader, the paper account and the lab call them.
 */
export * from './exits.js';
export * from './fills.js';
export * from './margin.js';
export * from './pair-position.js';
export * from './risk.js';
export * from './sizing.js';
