// Refuses, before any handler or authentication runs, text that PostgreSQL cannot store or that is not
// Unicode: a NUL anywhere in the URL, the headers or the JSON body, an unpaired surrogate, a body that
// is not UTF-8, and URLs longer than we route. One place for every route, so no handler has to care.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bodyNotUtf8, hostHeaderMissing, invalidCharacter, urlTooLong } from '../error-factories.ts';

/**
 * Longest request target (path and query) we route. Node's parser refuses a request line past its
 * 16 KiB header limit; ours is lower so that a long URL is told apart from large headers (414 vs 431).
 */
export const MAX_URL_LENGTH = 8192;

// An unpaired UTF-16 surrogate: JSON's "\ud800" escape makes one, and it cannot become UTF-8 text.
// String.prototype.isWellFormed (V8 11.1, Node 20) answers the same question natively, about 10x
// faster than a regular expression with a lookbehind; the types of lib ES2023 do not know it yet.
type WellFormedText = string & { isWellFormed(): boolean };

/** Why this text cannot be accepted, or undefined when it can. */
export function unacceptableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (!(text as WellFormedText).isWellFormed()) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

interface JsonNode {
  value: unknown;
  key: string;
  parent: JsonNode | undefined;
}

function pathOf(node: JsonNode | undefined): string {
  const keys: string[] = [];
  for (let at = node; at !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

/**
 * The first unacceptable string (key or value) in a parsed JSON value, with its path. Iterative, and
 * the path is built only for a find: a body nested thousands deep must cost neither stack nor memory.
 * A flat object of strings, numbers and booleans (every achieve and connect body) is checked in one
 * loop without building the stack (docs/performance.md, "Fourth round: CPU per request").
 */
export function findInJson(root: unknown): { path: string; why: string } | undefined {
  if (typeof root === 'string') {
    const why = unacceptableText(root);
    return why === undefined ? undefined : { path: 'body', why };
  }
  if (typeof root !== 'object' || root === null) return undefined;
  if (!Array.isArray(root)) {
    const flat = flatObjectFinding(root as Record<string, unknown>);
    if (flat !== 'nested') return flat;
  }
  const stack: JsonNode[] = [{ value: root, key: 'body', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop() as JsonNode;
    const { value } = node;
    if (typeof value === 'string') {
      const why = unacceptableText(value);
      if (why !== undefined) return { path: pathOf(node), why };
    } else if (Array.isArray(value)) {
      // Pushed in reverse so that the first offending item in document order is the one named.
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], key: String(i), parent: node });
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const keyWhy = unacceptableText(key);
        if (keyWhy !== undefined) return { path: pathOf(node), why: `has a field name that ${keyWhy}` };
        stack.push({ value: (value as Record<string, unknown>)[key], key, parent: node });
      }
    }
  }
  return undefined;
}

/**
 * The finding of an object whose values are all scalars, the same as the walk's, or 'nested' when
 * a value is an object or array and the walk must run. The walk checks every key of an object
 * before any value, going from the last key to the first and stopping at a bad one (so the last
 * bad key in document order is named), then the values in document order.
 */
function flatObjectFinding(
  object: Record<string, unknown>,
): { path: string; why: string } | undefined | 'nested' {
  let keyWhy: string | undefined;
  let valueFinding: { path: string; why: string } | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (typeof value === 'object' && value !== null) return 'nested';
    keyWhy = unacceptableText(key) ?? keyWhy;
    if (valueFinding === undefined && typeof value === 'string') {
      const why = unacceptableText(value);
      if (why !== undefined) valueFinding = { path: `body.${key}`, why };
    }
  }
  if (keyWhy !== undefined) return { path: 'body', why: `has a field name that ${keyWhy}` };
  return valueFinding;
}

/** Throws when a URL part or header value (a string, or a list of them) cannot be accepted. */
function checkValue(field: string, value: unknown): void {
  if (typeof value === 'string') {
    const why = unacceptableText(value);
    if (why !== undefined) throw invalidCharacter(field, why);
  } else if (Array.isArray(value)) {
    for (const item of value) {
      const why = typeof item === 'string' ? unacceptableText(item) : undefined;
      if (why !== undefined) throw invalidCharacter(field, why);
    }
  }
}

const PERCENT_NUL = /%00/i;

/** The onRequest check of the URL and headers; runs before the scopes' authentication hooks. */
function checkUrlAndHeaders(request: FastifyRequest): void {
  const url = request.raw.url ?? '';
  if (url.length > MAX_URL_LENGTH) {
    throw urlTooLong(MAX_URL_LENGTH);
  }
  // HTTP/1.1 requires Host (RFC 9112 3.2); Node's own refusal would have no body (server.ts).
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    throw hostHeaderMissing();
  }
  // A NUL reaches us in the URL only as %00 (Node's parser refuses the raw byte).
  if (url.includes('\u0000') || (url.includes('%') && PERCENT_NUL.test(url)))
    throw invalidCharacter('url', 'contains a NUL character');
  const query = request.query as Record<string, unknown>;
  for (const name of Object.keys(query)) checkValue(`querystring.${name}`, query[name]);
  const headers = request.headers;
  for (const name of Object.keys(headers)) checkValue(`headers.${name}`, headers[name]);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Registers the checks on the root instance. Call before any scope is registered, so that the hook
 * runs first and the JSON parser is the one every scope inherits.
 */
export function registerInputGuard(app: FastifyInstance): void {
  // Callback style, here and in the other hooks every request runs: an async hook costs a promise
  // and a turn of the microtask queue per request (docs/performance.md, "Tenth round").
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkUrlAndHeaders(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });

  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(bodyNotUtf8(), undefined);
      return;
    }
    void parseJson(request, text, (error, parsed) => {
      if (error) return done(error, undefined);
      const found = findInJson(parsed);
      if (found) return done(invalidCharacter(found.path, found.why), undefined);
      done(null, parsed);
    });
  });
}
