import { isScheduledOpen, type TradingSchedule } from '../trading-schedule.js';
import type { Unsubscribe } from '../types.js';
import type { CTraderFeed } from './feed.js';
import { parsePayload } from './parse.js';
import { scheduleOf } from './schedule.js';
import {
  AssetListResSchema,
  DealListResSchema,
  OrderListResSchema,
  ReconcileResSchema,
  TraderResSchema,
  UnrealizedPnLResSchema,
  type WireDeal,
  type WireOrder,
  type WirePosition,
} from './trade-wire.js';
import { PayloadType, SymbolByIdResSchema, SymbolsListResSchema, type FullSymbol } from './wire.js';

/** What the terminal and the account reader need of a symbol: its ProtoOASymbol terms, with its assets' names. */
export interface SymbolTerms {
  symbolId: number;
  name: string;
  description: string;
  digits: number;
  pipPosition: number;
  /** Volumes in cents of units. */
  lotSize: number;
  minVolume: number;
  maxVolume: number;
  stepVolume: number;
  /** The larger of slDistance and tpDistance when given in points; 0 when in percent (no point figure). */
  stopsLevelPoints: number;
  tradingMode: string;
  isShortSellingEnabled: boolean;
  schedule: TradingSchedule;
  baseAsset: string;
  quoteAsset: string;
}

/** ProtoOATrader, read: money as integers of `moneyDigits`. */
export interface TraderState {
  balance: number;
  moneyDigits: number;
  currency: string;
  /** 1:N, or null when the venue does not say. */
  leverage: number | null;
  registrationMs: number;
  brokerName: string | null;
}

/** Unrealized P/L of each open position, money integers of `moneyDigits`. */
export interface UnrealizedPnL {
  moneyDigits: number;
  byPosition: Map<number, { gross: number; net: number }>;
}

const IDS_PER_REQUEST = 100;
/** An FX lot, 100 000 units, in cents: the default when a symbol states no lotSize. */
const FX_LOT_SIZE = 10_000_000;
/** Pages of one history read at most: a guard against a venue that keeps answering hasMore. */
const MAX_PAGES = 100;

/**
 * The account reads the terminal and the account reader share, over the feed's authorized
 * session: the symbols' terms (ProtoOASymbolsListReq, ProtoOASymbolByIdReq, ProtoOAAssetListReq,
 * kept for the session), the trader (ProtoOATraderReq), open positions and pending orders
 * (ProtoOAReconcileReq), their unrealized P/L (ProtoOAGetPositionUnrealizedPnLReq), and the
 * history (ProtoOADealListReq, ProtoOAOrderListReq, paced as historical requests).
 */
export class CTraderAccountData {
  private readonly feed: CTraderFeed;
  private readonly offState: Unsubscribe;
  private catalog: Promise<Map<string, SymbolTerms>> | undefined;
  private assets: Map<number, string> | undefined;

  constructor(feed: CTraderFeed) {
    this.feed = feed;
    // Symbols and assets are read again in every session: the venue may have changed them.
    this.offState = feed.onState(({ state }) => {
      if (state === 'connected') this.catalog = undefined;
    });
  }

  /** Stops following the feed's sessions. */
  close(): void {
    this.offState();
  }

  /** Every symbol with a name and full details, by name. */
  symbols(): Promise<Map<string, SymbolTerms>> {
    if (!this.catalog) {
      const loading = this.loadSymbols();
      this.catalog = loading;
      loading.catch(() => {
        if (this.catalog === loading) this.catalog = undefined;
      });
    }
    return this.catalog;
  }

  async terms(name: string): Promise<SymbolTerms | undefined> {
    return (await this.symbols()).get(name);
  }

  /** The symbol's terms read now (a holiday or a trading mode set since the session began). */
  async freshTerms(name: string): Promise<SymbolTerms | undefined> {
    const known = await this.terms(name);
    if (!known) return undefined;
    const response = parsePayload(
      SymbolByIdResSchema,
      await this.feed.accountRequest(PayloadType.SYMBOL_BY_ID_REQ, { symbolId: [known.symbolId] }, PayloadType.SYMBOL_BY_ID_RES),
      PayloadType.SYMBOL_BY_ID_RES,
    );
    const full = response.symbol.find((s) => s.symbolId === known.symbolId);
    return full ? termsOf(full, known) : known;
  }

  async symbolById(symbolId: number): Promise<SymbolTerms | undefined> {
    for (const terms of (await this.symbols()).values()) if (terms.symbolId === symbolId) return terms;
    return undefined;
  }

  async trader(): Promise<TraderState> {
    const { trader } = parsePayload(
      TraderResSchema,
      await this.feed.accountRequest(PayloadType.TRADER_REQ, {}, PayloadType.TRADER_RES),
      PayloadType.TRADER_RES,
    );
    const assets = await this.assetNames();
    return {
      balance: trader.balance,
      moneyDigits: trader.moneyDigits ?? 2,
      currency: assets.get(trader.depositAssetId) ?? '',
      leverage: trader.leverageInCents === undefined ? null : trader.leverageInCents / 100,
      registrationMs: trader.registrationTimestamp ?? 0,
      brokerName: trader.brokerName ?? null,
    };
  }

  async reconcile(): Promise<{ positions: WirePosition[]; orders: WireOrder[] }> {
    const res = parsePayload(
      ReconcileResSchema,
      await this.feed.accountRequest(PayloadType.RECONCILE_REQ, {}, PayloadType.RECONCILE_RES),
      PayloadType.RECONCILE_RES,
    );
    return {
      positions: res.position.filter((p) => p.positionStatus === 'POSITION_STATUS_OPEN'),
      orders: res.order.filter((o) => o.orderStatus === 'ORDER_STATUS_ACCEPTED' && (o.orderType === 'LIMIT' || o.orderType === 'STOP')),
    };
  }

  async unrealized(): Promise<UnrealizedPnL> {
    const res = parsePayload(
      UnrealizedPnLResSchema,
      await this.feed.accountRequest(PayloadType.GET_POSITION_UNREALIZED_PNL_REQ, {}, PayloadType.GET_POSITION_UNREALIZED_PNL_RES),
      PayloadType.GET_POSITION_UNREALIZED_PNL_RES,
    );
    return {
      moneyDigits: res.moneyDigits,
      byPosition: new Map(res.positionUnrealizedPnL.map((p) => [p.positionId, { gross: p.grossUnrealizedPnL, net: p.netUnrealizedPnL }])),
    };
  }

  /**
   * Deals executed in [fromMs, toMs], oldest first. A response with `hasMore` ("the number of
   * records by filter is larger than chunkSize") holds the newest of them: the read goes on back
   * from its oldest deal.
   */
  async dealsBetween(fromMs: number, toMs: number): Promise<WireDeal[]> {
    const deals = new Map<number, WireDeal>();
    let upTo = toMs;
    for (let page = 0; page < MAX_PAGES && upTo >= fromMs; page++) {
      const res = parsePayload(
        DealListResSchema,
        await this.feed.accountRequest(PayloadType.DEAL_LIST_REQ, { fromTimestamp: fromMs, toTimestamp: upTo }, PayloadType.DEAL_LIST_RES, {
          historical: true,
        }),
        PayloadType.DEAL_LIST_RES,
      );
      for (const deal of res.deal) deals.set(deal.dealId, deal);
      if (res.hasMore !== true || res.deal.length === 0) break;
      upTo = Math.min(...res.deal.map((d) => d.executionTimestamp)) - 1;
    }
    return [...deals.values()].sort((a, b) => a.executionTimestamp - b.executionTimestamp || a.dealId - b.dealId);
  }

  /** Orders (any status) of [fromMs, toMs], by id. */
  async ordersBetween(fromMs: number, toMs: number): Promise<Map<number, WireOrder>> {
    const orders = new Map<number, WireOrder>();
    let upTo = toMs;
    for (let page = 0; page < MAX_PAGES && upTo >= fromMs; page++) {
      const res = parsePayload(
        OrderListResSchema,
        await this.feed.accountRequest(PayloadType.ORDER_LIST_REQ, { fromTimestamp: fromMs, toTimestamp: upTo }, PayloadType.ORDER_LIST_RES, {
          historical: true,
        }),
        PayloadType.ORDER_LIST_RES,
      );
      for (const order of res.order) orders.set(order.orderId, order);
      if (res.hasMore !== true || res.order.length === 0) break;
      upTo = Math.min(...res.order.map((o) => o.tradeData.openTimestamp ?? upTo)) - 1;
    }
    return orders;
  }

  private async assetNames(): Promise<Map<number, string>> {
    if (!this.assets) {
      const res = parsePayload(
        AssetListResSchema,
        await this.feed.accountRequest(PayloadType.ASSET_LIST_REQ, {}, PayloadType.ASSET_LIST_RES),
        PayloadType.ASSET_LIST_RES,
      );
      this.assets = new Map(res.asset.map((a) => [a.assetId, a.name]));
    }
    return this.assets;
  }

  private async loadSymbols(): Promise<Map<string, SymbolTerms>> {
    this.assets = undefined;
    const assets = await this.assetNames();
    const list = parsePayload(
      SymbolsListResSchema,
      await this.feed.accountRequest(PayloadType.SYMBOLS_LIST_REQ, { includeArchivedSymbols: false }, PayloadType.SYMBOLS_LIST_RES),
      PayloadType.SYMBOLS_LIST_RES,
    );
    const named = list.symbol.filter((s) => s.symbolName);
    const byName = new Map<string, SymbolTerms>();
    for (let i = 0; i < named.length; i += IDS_PER_REQUEST) {
      const chunk = named.slice(i, i + IDS_PER_REQUEST);
      const res = parsePayload(
        SymbolByIdResSchema,
        await this.feed.accountRequest(PayloadType.SYMBOL_BY_ID_REQ, { symbolId: chunk.map((s) => s.symbolId) }, PayloadType.SYMBOL_BY_ID_RES),
        PayloadType.SYMBOL_BY_ID_RES,
      );
      for (const full of res.symbol) {
        const light = chunk.find((s) => s.symbolId === full.symbolId);
        if (!light?.symbolName || byName.has(light.symbolName)) continue;
        byName.set(
          light.symbolName,
          termsOf(full, {
            name: light.symbolName,
            description: light.description ?? '',
            baseAsset: light.baseAssetId === undefined ? '' : (assets.get(light.baseAssetId) ?? ''),
            quoteAsset: light.quoteAssetId === undefined ? '' : (assets.get(light.quoteAssetId) ?? ''),
          }),
        );
      }
    }
    return byName;
  }
}

function termsOf(full: FullSymbol, named: Pick<SymbolTerms, 'name' | 'description' | 'baseAsset' | 'quoteAsset'>): SymbolTerms {
  const lotSize = full.lotSize ?? FX_LOT_SIZE;
  const isInPoints = full.distanceSetIn === undefined || full.distanceSetIn === 'SYMBOL_DISTANCE_IN_POINTS' || full.distanceSetIn === 1;
  return {
    symbolId: full.symbolId,
    name: named.name,
    description: named.description,
    baseAsset: named.baseAsset,
    quoteAsset: named.quoteAsset,
    digits: full.digits,
    pipPosition: full.pipPosition,
    lotSize,
    minVolume: full.minVolume ?? lotSize / 100,
    maxVolume: full.maxVolume ?? lotSize * 100,
    stepVolume: full.stepVolume ?? lotSize / 100,
    stopsLevelPoints: isInPoints ? Math.max(full.slDistance ?? 0, full.tpDistance ?? 0) : 0,
    tradingMode: typeof full.tradingMode === 'number' ? (TRADING_MODES[full.tradingMode] ?? 'ENABLED') : (full.tradingMode ?? 'ENABLED'),
    isShortSellingEnabled: full.enableShortSelling !== false,
    schedule: scheduleOf(full),
  };
}

/** ProtoOATradingMode. */
const TRADING_MODES: Record<number, string> = {
  0: 'ENABLED',
  1: 'DISABLED_WITHOUT_PENDINGS_EXECUTION',
  2: 'DISABLED_WITH_PENDINGS_EXECUTION',
  3: 'CLOSE_ONLY_MODE',
};

/** Whether the symbol's schedule and holidays have it trading at `epochMs`. */
export function isTradingAt(terms: SymbolTerms, epochMs: number): boolean {
  return isScheduledOpen(terms.schedule, epochMs);
}
