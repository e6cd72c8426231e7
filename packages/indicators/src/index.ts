export { isValidCandle, type Candle, type StreamingIndicator } from './types.js';
export { Atr, type AtrOptions } from './atr.js';
export { Rsi, type RsiOptions } from './rsi.js';
export { Supertrend, type SupertrendOptions, type SupertrendValue } from './supertrend.js';
export { STOCH_RSI_CROSS_EPSILON, StochRsi, stochRsiSide, stochRsiSignal, type StochRsiOptions, type StochRsiSignal, type StochRsiValue } from './stoch-rsi.js';
export { FairValueGaps, type FairValueGap, type FvgMitigation, type FvgOptions, type FvgType, type FvgValue } from './fvg.js';
export { VolumeProfile, type VolumeProfileOptions, type VolumeProfileRow, type VolumeProfileValue } from './volume-profile.js';
export { syntheticCandles, type SyntheticCandleOptions } from './synthetic.js';
