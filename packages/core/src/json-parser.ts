import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/**
 * How deep a JSON body may nest (objects and arrays). No body any fxdesk route takes comes near
 * it; a deeper one is refused before it is parsed, so a small `[[[…]]]` cannot hold the event
 * loop while JSON.parse builds half a million arrays.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether `text` opens more than `maxDepth` objects or arrays inside one another, read in one
 * pass that skips strings (a `[` inside a string is not nesting). It stops at the first level
 * too deep; malformed text is left for the parser to refuse.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

type ParserDone = (err: Error | null, body?: unknown) => void;

/**
 * Fastify's own JSON parser (with its prototype-poisoning refusal) behind the depth check: a body
 * nesting deeper than `maxDepth` is 400 `invalid_json` without being parsed. For a scope that
 * replaces the application/json parser and still parses JSON.
 */
export function depthCheckedJsonParser(app: FastifyInstance, maxDepth = MAX_JSON_DEPTH) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string, done: ParserDone): void => {
    if (nestsDeeperThan(body, maxDepth)) {
      done(new AppError('invalid_json', `the JSON body nests deeper than ${maxDepth} levels`), undefined);
      return;
    }
    void parse(request, body, done);
  };
}

/** Makes `app`'s application/json parser the depth-checked one. */
export function installJsonParser(app: FastifyInstance): void {
  const parser = depthCheckedJsonParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => parser(request, body as string, done));
}
