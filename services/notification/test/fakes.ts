/**
 * Local stand-ins for the providers, answering as their documentation says they answer:
 * - Telegram Bot API: https://core.telegram.org/bots/api#making-requests (`{ ok, result }`,
 *   `{ ok: false, error_code, description, parameters: { retry_after } }`), sendMessage limits
 *   (1-4096 characters after entities parsing) and the HTML style tag set.
 * - Twilio Messages API: 201 with the Message resource; errors `{ code, message, more_info, status }`,
 *   429 with Retry-After; basic auth AccountSid:AuthToken.
 * - WhatsApp Cloud API: `{ messaging_product, contacts, messages: [{ id }] }`; Graph errors
 *   `{ error: { message, type, code, error_data: { messaging_product, details }, fbtrace_id } }`.
 * - SMTP: a real SMTP server (smtp-server) that keeps every message it accepts.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  json?: Record<string, unknown>;
  form?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

type Script = (req: Received) => Reply | undefined;

/** An HTTP server with a default provider behaviour and a queue of scripted replies. */
export class FakeProvider {
  readonly received: Received[] = [];
  private readonly scripted: Script[] = [];
  private server!: http.Server;
  url = '';

  constructor(private readonly behave: (req: Received) => Reply) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const received: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw };
        const type = req.headers['content-type'] ?? '';
        if (type.startsWith('application/json')) received.json = JSON.parse(raw) as Record<string, unknown>;
        if (type.startsWith('application/x-www-form-urlencoded')) received.form = Object.fromEntries(new URLSearchParams(raw));
        this.received.push(received);
        const reply = this.scripted.shift()?.(received) ?? this.behave(received);
        res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The next replies, in order, before the default behaviour resumes. */
  next(...replies: (Reply | Script)[]): void {
    for (const r of replies) this.scripted.push(typeof r === 'function' ? r : () => r);
  }

  reset(): void {
    this.received.length = 0;
    this.scripted.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// ─── Telegram ──────────────────────────────────────────────────────────────────────────────

const TELEGRAM_TAGS = /^(b|strong|i|em|u|ins|s|strike|del|tg-spoiler|code|pre|a|blockquote|span|tg-emoji)$/;

/** Telegram's parse: the supported tags, well nested, no stray `<`/`>`/`&`; returns the visible text or an error. */
export function parseTelegramHtml(text: string): { visible: string } | { error: string } {
  const stack: string[] = [];
  let visible = '';
  const re = /<(\/?)([a-z-]+)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*>|&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);|([<>&])|([^<>&]+)/gi;
  for (const m of text.matchAll(re)) {
    if (m[2]) {
      const name = m[2].toLowerCase();
      if (!TELEGRAM_TAGS.test(name)) return { error: `Bad Request: can't parse entities: Unsupported start tag "${name}"` };
      if (m[1]) {
        if (stack.pop() !== name) return { error: `Bad Request: can't parse entities: Unmatched end tag "${name}"` };
      } else stack.push(name);
    } else if (m[4]) {
      visible += '?';
    } else if (m[5]) {
      return { error: `Bad Request: can't parse entities: Unexpected "${m[5]}"` };
    } else if (m[6]) visible += m[6];
  }
  if (stack.length > 0) return { error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${stack.at(-1)}"` };
  return { visible };
}

export function telegramError(errorCode: number, description: string, parameters?: Record<string, number>): Reply {
  return { status: errorCode, body: { ok: false, error_code: errorCode, description, ...(parameters ? { parameters } : {}) } };
}

/** One sendMessage as the fake Telegram judged it, at its clock's time. */
export interface TelegramCall {
  at: number;
  chat: string;
  /** The message_id given, or the error_code refused with. */
  outcome: { messageId: number } | { errorCode: number; retryAfter?: number };
}

export interface FakeTelegramOptions {
  /** The clock the fake judges the limits by (the service's manual clock in tests); Date.now by default. */
  now?: () => number;
  /** Groups upgraded to supergroups: old chat id → new. */
  migrated?: Record<string, number>;
}

/** A bot's accepted messages in the last `windowMs` before `now`: whether one more passes, else the seconds until it would. */
function floodWait(times: number[], now: number, limit: number, windowMs: number): number | undefined {
  const inWindow = times.filter((t) => t > now - windowMs);
  if (inWindow.length < limit) return undefined;
  const oldest = inWindow[inWindow.length - limit] as number;
  return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
}

/**
 * The Bot FAQ's limits as flood control keeps them: 1 message a second to a chat, 20 a minute to a
 * group (a negative id or @channel), 30 a second from the bot. `admit` posts a message to `chat`
 * at `at`, or answers the seconds to wait (nothing posted).
 */
function floodControl() {
  const sent = new Map<string, number[]>();
  const bot: number[] = [];
  return {
    admit(chat: string, at: number): number | undefined {
      const times = sent.get(chat) ?? [];
      const isGroup = chat.startsWith('-') || chat.startsWith('@');
      const wait = floodWait(times, at, 1, 1000) ?? (isGroup ? floodWait(times, at, 20, 60_000) : undefined) ?? floodWait(bot, at, 30, 1000);
      if (wait !== undefined) return wait;
      times.push(at);
      sent.set(chat, times);
      bot.push(at);
      return undefined;
    },
    clear() {
      sent.clear();
      bot.length = 0;
    },
  };
}

/**
 * The Bot API's sendMessage, with the limits the Bot FAQ documents
 * (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this), answered as
 * flood control answers: 429 `Too Many Requests: retry after N` with `parameters.retry_after`:
 * more than 1 message a second to a chat, 20 a minute to a group (a negative id or @channel),
 * 30 a second from the bot. A migrated group answers 400 with `parameters.migrate_to_chat_id`
 * (https://core.telegram.org/bots/api#responseparameters). `calls` keeps every judgement.
 */
export function fakeTelegram(token: string, options: FakeTelegramOptions = {}): FakeProvider & { calls: TelegramCall[] } {
  const now = options.now ?? Date.now;
  let messageId = 100;
  const calls: TelegramCall[] = [];
  const limits = floodControl();
  const judge = (chat: string, reply: Reply): Reply => {
    const body = reply.body as { result?: { message_id: number }; error_code?: number; parameters?: { retry_after?: number } };
    calls.push({
      at: now(),
      chat,
      outcome: body.result ? { messageId: body.result.message_id } : { errorCode: body.error_code ?? reply.status, retryAfter: body.parameters?.retry_after },
    });
    return reply;
  };
  const fake = new FakeProvider((req) => {
    if (req.path !== `/bot${token}/sendMessage`)
      return telegramError(req.path.startsWith('/bot') ? 401 : 404, req.path.startsWith('/bot') ? 'Unauthorized' : 'Not Found');
    const body = req.json ?? {};
    if (body.chat_id === undefined) return telegramError(400, 'Bad Request: chat_id is empty');
    const chat = typeof body.chat_id === 'string' ? body.chat_id : JSON.stringify(body.chat_id);
    const text = typeof body.text === 'string' ? body.text : '';
    const parsed = body.parse_mode === 'HTML' ? parseTelegramHtml(text) : { visible: text };
    if ('error' in parsed) return judge(chat, telegramError(400, parsed.error));
    if (parsed.visible.trim().length === 0) return judge(chat, telegramError(400, 'Bad Request: message text is empty'));
    if (parsed.visible.length > 4096) return judge(chat, telegramError(400, 'Bad Request: message is too long'));
    if (body.chat_id === 404) return judge(chat, telegramError(400, 'Bad Request: chat not found'));
    const movedTo = options.migrated?.[chat];
    if (movedTo !== undefined)
      return judge(chat, telegramError(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: movedTo }));
    const at = now();
    const wait = limits.admit(chat, at);
    if (wait !== undefined) return judge(chat, telegramError(429, `Too Many Requests: retry after ${wait}`, { retry_after: wait }));
    messageId += 1;
    return judge(chat, {
      status: 200,
      body: { ok: true, result: { message_id: messageId, date: Math.floor(at / 1000), chat: { id: body.chat_id, type: 'private' }, text: parsed.visible } },
    });
  });
  const reset = fake.reset.bind(fake);
  fake.reset = () => {
    reset();
    calls.length = 0;
    limits.clear();
  };
  return Object.assign(fake, { calls });
}

/** What an outage fake does with a sendMessage: refuse it with a 500, hold it unanswered, or take it. */
export type OutagePhase = 'fail' | 'hang' | 'succeed';

/**
 * A Bot API that goes through an outage, phase by phase as the test sets `phase`: `fail` answers
 * 500 at once ({ ok: false, error_code: 500 }, nothing posted); `hang` never answers (the request
 * is held until the client gives up; nothing posted); `succeed` posts the message when the request
 * arrives, keeping the Bot FAQ's limits as fakeTelegram does (a 429 with retry_after past them,
 * nothing posted), and answers `latencyMs` later, so a client killed meanwhile has had its message
 * posted without hearing so. `posted` counts each (chat, text) posted: more than one is a duplicate.
 */
export function outageTelegram(token: string, latencyMs: number) {
  const posted = new Map<string, number>();
  const counts = { failed: 0, hung: 0, tooMany: 0, posted: 0 };
  const limits = floodControl();
  const held = new Set<http.ServerResponse>();
  let phase: OutagePhase = 'fail';
  let messageId = 100;
  const reply = (res: http.ServerResponse, r: Reply) => {
    res.writeHead(r.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(r.body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== `/bot${token}/sendMessage`) return reply(res, telegramError(404, 'Not Found'));
      if (phase === 'fail') {
        counts.failed += 1;
        return reply(res, telegramError(500, 'Internal Server Error'));
      }
      if (phase === 'hang') {
        counts.hung += 1;
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { chat_id: unknown; text: string };
      const chat = String(body.chat_id);
      const at = Date.now();
      const wait = limits.admit(chat, at);
      if (wait !== undefined) {
        counts.tooMany += 1;
        return reply(res, telegramError(429, `Too Many Requests: retry after ${wait}`, { retry_after: wait }));
      }
      const key = `${chat}\n${body.text}`;
      posted.set(key, (posted.get(key) ?? 0) + 1);
      counts.posted += 1;
      messageId += 1;
      const result = { ok: true, result: { message_id: messageId, date: Math.floor(at / 1000), chat: { id: body.chat_id, type: 'private' }, text: body.text } };
      setTimeout(() => reply(res, { status: 200, body: result }), latencyMs);
    });
  });
  return {
    posted,
    counts,
    url: '',
    setPhase(next: OutagePhase) {
      phase = next;
    },
    /** Messages posted more than once. */
    duplicates(): number {
      return [...posted.values()].reduce((sum, n) => sum + n - 1, 0);
    },
    async start() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return this;
    },
    async stop() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ─── Twilio ────────────────────────────────────────────────────────────────────────────────

export function twilioError(status: number, code: number, message: string, headers?: Record<string, string>): Reply {
  return { status, headers, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } };
}

export function fakeTwilio(accountSid: string, authToken: string): FakeProvider {
  return new FakeProvider((req) => {
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return twilioError(401, 20003, 'Authenticate');
    if (req.path !== `/2010-04-01/Accounts/${accountSid}/Messages.json`) return twilioError(404, 20404, 'The requested resource was not found');
    const form = req.form ?? {};
    if (!/^\+[1-9]\d{6,14}$/.test(form.To ?? '')) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${form.To ?? ''}`);
    if (!form.From && !form.MessagingServiceSid) return twilioError(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message");
    if ((form.Body ?? '').length > 1600) return twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit');
    const sid = `SM${randomBytes(16).toString('hex')}`;
    return {
      status: 201,
      body: {
        sid,
        account_sid: accountSid,
        to: form.To,
        from: form.From ?? null,
        messaging_service_sid: form.MessagingServiceSid ?? null,
        body: form.Body,
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        error_code: null,
        error_message: null,
        uri: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`,
      },
    };
  });
}

// ─── WhatsApp ──────────────────────────────────────────────────────────────────────────────

export function graphError(status: number, code: number, message: string, details?: string): Reply {
  return {
    status,
    body: {
      error: { message, type: 'OAuthException', code, error_data: { messaging_product: 'whatsapp', details: details ?? message }, fbtrace_id: 'AbCdEf123' },
    },
  };
}

export function fakeWhatsApp(phoneNumberId: string, token: string, version = 'v23.0'): FakeProvider {
  return new FakeProvider((req) => {
    if (req.headers.authorization !== `Bearer ${token}`) return graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (req.path !== `/${version}/${phoneNumberId}/messages`) return graphError(400, 100, 'Unsupported post request.');
    const body = req.json ?? {};
    const text = (body.text as { body?: string } | undefined)?.body ?? '';
    if (body.messaging_product !== 'whatsapp') return graphError(400, 100, '(#100) The parameter messaging_product is required.');
    if (text.length === 0 || text.length > 4096) return graphError(400, 100, '(#100) Invalid parameter', 'text.body must be 1 to 4096 characters');
    const to = String(body.to);
    return {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.${randomBytes(12).toString('base64url')}` }] },
    };
  });
}

// ─── SMTP ──────────────────────────────────────────────────────────────────────────────────

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server; `reject` decides per recipient: undefined accepts, else an SMTP reply code. */
export class FakeSmtp {
  readonly mails: ReceivedMail[] = [];
  reject: (recipient: string) => number | undefined = () => undefined;
  private server!: SMTPServer;
  port = 0;

  async start(): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        const code = this.reject(address.address);
        if (code === undefined) return callback();
        const err = new Error(code >= 500 ? `${address.address}: mailbox unavailable` : `${address.address}: try again later`) as Error & {
          responseCode: number;
        };
        err.responseCode = code;
        return callback(err);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          this.mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => `%${hex}`);
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
}

function headerValue(head: string, name: string): string | undefined {
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(unfolded)?.[1]?.trim();
}

function decodePart(part: string): { type: string; body: string } {
  const split = part.search(/\r?\n\r?\n/);
  const head = part.slice(0, split);
  const body = part.slice(split).replace(/^\r?\n\r?\n/, '');
  const encoding = (headerValue(head, 'Content-Transfer-Encoding') ?? '7bit').toLowerCase();
  const type = (headerValue(head, 'Content-Type') ?? 'text/plain').split(';')[0]?.trim().toLowerCase() ?? 'text/plain';
  const decoded =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return { type, body: decoded.replace(/\r\n/g, '\n').replace(/\n$/, '') };
}

/** Reads the subject, Message-ID and the text and html parts of a message nodemailer wrote. */
export function parseMail(raw: string): { subject?: string; messageId?: string; to?: string; text?: string; html?: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split);
  const contentType = headerValue(head, 'Content-Type') ?? '';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  const parts = boundary
    ? raw
        .slice(split)
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((p) => decodePart(p.replace(/^\r?\n/, '')))
    : [decodePart(raw)];
  return {
    subject: headerValue(head, 'Subject'),
    messageId: headerValue(head, 'Message-ID'),
    to: headerValue(head, 'To'),
    text: parts.find((p) => p.type === 'text/plain')?.body,
    html: parts.find((p) => p.type === 'text/html')?.body,
  };
}
