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
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why this text cannot be accepted, or undefined when it can. */
export function unacceptableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/**
 * The first unacceptable string (key or value) in a parsed JSON value, with its path. Iterative, and
 * the path is built only for a find: a body nested thousands deep must cost neither stack nor memory.
 */
function findInJson(root: unknown): { path: string; why: string } | undefined {
  interface Node {
    value: unknown;
    key: string;
    parent: Node | undefined;
  }
  const pathOf = (node: Node | undefined): string => {
    const keys: string[] = [];
    for (let at = node; at !== undefined; at = at.parent) keys.push(at.key);
    return keys.reverse().join('.');
  };
  const stack: Node[] = [{ value: root, key: 'body', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const { value } = node;
    if (typeof value === 'string') {
      const why = unacceptableText(value);
      if (why !== undefined) return { path: pathOf(node), why };
    } else if (typeof value === 'object' && value !== null) {
      const entries = Array.isArray(value)
        ? value.map((item, i) => [String(i), item] as const)
        : Object.entries(value);
      // Pushed in reverse so that the first offending field in document order is the one named.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as readonly [string, unknown];
        const keyWhy = Array.isArray(value) ? undefined : unacceptableText(key);
        if (keyWhy !== undefined) return { path: pathOf(node), why: `has a field name that ${keyWhy}` };
        stack.push({ value: item, key, parent: node });
      }
    }
  }
  return undefined;
}

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
  if (/%00/i.test(url) || url.includes('\u0000')) throw invalidCharacter('url', 'contains a NUL character');
  for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const why = typeof item === 'string' ? unacceptableText(item) : undefined;
      if (why !== undefined) throw invalidCharacter(`querystring.${name}`, why);
    }
  }
  for (const [name, value] of Object.entries(request.headers)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const why = typeof item === 'string' ? unacceptableText(item) : undefined;
      if (why !== undefined) throw invalidCharacter(`headers.${name}`, why);
    }
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Registers the checks on the root instance. Call before any scope is registered, so that the hook
 * runs first and the JSON parser is the one every scope inherits.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => checkUrlAndHeaders(request));

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
