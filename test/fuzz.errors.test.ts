// Fuzz test generated from /openapi.json: for every operation, fast-check sends malformed values (wrong
// types, NUL bytes, unpaired surrogates, broken UTF-8, huge strings and numbers, arrays for scalars,
// missing and extra fields, bad path parameters and percent-encodings), with the scope's credentials
// and without. Never a 5xx; every refusal has exactly the error body with a catalog code and status;
// a refused request changes nothing in the database. Fixed seed and bounded runs for CI;
// `FUZZ_RUNS=5000 npm run fuzz` is the nightly size (FUZZ_SEED picks another seed).
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../src/errors.ts';
import type { ErrorName } from '../src/errors.ts';
import { ADMIN_TOKEN, createAccount, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { databaseFingerprint } from './database-fingerprint.ts';

/** Requests in the whole run, spread evenly over the operations. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  examples?: unknown[];
  minimum?: number;
  minLength?: number;
  format?: string;
};

type Scope = 'partner' | 'admin' | 'user' | 'public';

interface Operation {
  method: InjectOptions['method'];
  /** OpenAPI path template, e.g. /admin/v1/partners/{partnerId}. */
  path: string;
  scope: Scope;
  query: Array<{ name: string; required: boolean; schema: JsonSchema }>;
  body: JsonSchema | undefined;
}

let ctx: TestContext;
let setup: MissionSetup;
let operations: Operation[];
let userCookie: string;

beforeAll(async () => {
  ctx = await startTestApp({ env: { BODY_LIMIT_BYTES: '65536' } });
  setup = await setupMission(ctx, { target: 10 });
  userCookie = await sessionCookie(
    ctx,
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u1' } }),
  );
  const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
    paths: Record<string, Record<string, OpenApiOperation>>;
  }>();
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => toOperation(path, method, operation)),
  );
});
afterAll(() => ctx.close());

interface OpenApiOperation {
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
}

function toOperation(path: string, method: string, operation: OpenApiOperation): Operation {
  const schemes = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
  const scope: Scope = schemes.includes('partnerApiKey')
    ? 'partner'
    : schemes.includes('adminBearer')
      ? 'admin'
      : path.startsWith('/v1/me')
        ? 'user'
        : 'public';
  return {
    method: method.toUpperCase() as InjectOptions['method'],
    path,
    scope,
    query: (operation.parameters ?? [])
      .filter((p) => p.in === 'query')
      .map((p) => ({ name: p.name, required: p.required === true, schema: p.schema })),
    body: operation.requestBody?.content?.['application/json']?.schema,
  };
}

// --- Values ---------------------------------------------------------------------------------------

/** Strings an attacker tries: NUL, unpaired surrogates, escapes, injections, numbers as text, huge. */
const nastyString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    '\udc00\ud800',
    '%',
    '%zz',
    '%00',
    '%ED%A0%80',
    '../..',
    '..%2f..',
    "' OR 1=1 --",
    '"',
    '\\',
    '<script>alert(1)</script>',
    '__proto__',
    'constructor',
    'null',
    'true',
    'NaN',
    '-1',
    '1e999',
    '99999999999999999999999',
    '-9223372036854775809',
    '2026-02-30T25:61:00Z',
    '9999-12-31T23:59:59Z',
    '😀',
    '\u202e',
    '\uFEFF',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.integer().map(String),
  fc.constantFrom(300, 5000, 70_000).map((n) => 'x'.repeat(n)),
);

/** Any JSON value of the wrong kind: numbers at the edges, nested shapes, nasty strings. */
const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -0,
    -1,
    0.5,
    1e308,
    -1e308,
    2 ** 53 + 2,
    2 ** 63,
    2 ** 64,
    1e21,
    5e-324,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(nastyString, { maxLength: 3 }),
  fc.dictionary(nastyString, nastyString, { maxKeys: 3 }),
  fc.constant([[[[[[[[[[[]]]]]]]]]]]),
  fc.constant({ __proto__: { admin: true } }),
);

/** Percent-encodes for a URL, writing an unpaired surrogate as its (invalid) UTF-8 bytes; raw keeps ASCII as is. */
function encodeForUrl(text: string, raw: boolean): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
        .map((b) => `%${b.toString(16)}`)
        .join('');
    } else if (raw && /[!-~]/.test(ch) && !'#?/&='.includes(ch)) {
      out += ch;
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** A header value Node's parser would let through (no CR/LF, one byte per character). */
const asHeaderValue = (text: string) =>
  text
    .replace(/[\r\n]/g, '')
    .replace(/[\u0100-\uffff]/g, '?')
    .slice(0, 4000);

/** A value the schema accepts, so that one malformed part is all that is wrong. */
function validValue(schema: JsonSchema): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const choice = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (choice) return validValue(choice);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const name of schema.required ?? []) value[name] = validValue(schema.properties?.[name] ?? {});
      return value;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      if (schema.format === 'date-time') return '2026-06-01T00:00:00Z';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

/** Every path (as keys) to a property of the schema, nested objects included. */
function propertyPaths(schema: JsonSchema, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    out.push([...prefix, name]);
    out.push(...propertyPaths(child, [...prefix, name]));
  }
  return out;
}

function setAt(target: Record<string, unknown>, path: string[], value: unknown, remove: boolean): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (remove) delete node[last];
  else node[last] = value;
}

// --- Requests -------------------------------------------------------------------------------------

/** The id a path parameter names in our fixture, so that a malformed body gets past the lookup. */
function fixtureId(path: string, param: string): string {
  const before = path.split(`/{${param}}`)[0]?.split('/').pop();
  if (param === 'partnerUid') return 'u1';
  if (param === 'partnerId' || before === 'partners') return setup.partnerId;
  if (param === 'promotionId' || before === 'promotions') return setup.promotionId;
  if (param === 'groupId' || before === 'mission-groups') return setup.groupId;
  if (param === 'missionId' || before === 'missions') return setup.missionId;
  return 'no-such-id';
}

const pathParamValue = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) }, // the fixture's id (or a harmless unknown one)
  { weight: 3, arbitrary: fc.record({ text: nastyString, raw: fc.boolean() }) },
);

type BodyCase =
  | { kind: 'mutate'; at: number; value: unknown; remove: boolean }
  | { kind: 'extra'; name: string; value: unknown }
  | { kind: 'replace'; value: unknown }
  | { kind: 'bytes'; bytes: Buffer; contentType: string };

const bodyCase: fc.Arbitrary<BodyCase> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('mutate' as const),
      at: fc.nat(),
      value: nastyJson,
      remove: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('extra' as const), name: nastyString, value: nastyJson }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), value: nastyJson }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('bytes' as const),
      bytes: fc.oneof(
        fc
          .constantFrom(
            '{"a":"\xff"}',
            '{"a":"\xc0\x80"}',
            '{"a":"\xed\xa0\x80"}',
            '{"a":',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{"x":1}}}',
            '[]',
            '"text"',
            '1e999',
            '',
            '\x00',
            '{"a":"\\ud800"}',
            '{"a":"\\u0000"}',
          )
          .map((text) => Buffer.from(text, 'latin1')),
        fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
      ),
      contentType: fc.constantFrom(
        'application/json',
        'application/json; charset=latin1',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        '',
      ),
    }),
  },
);

const credentials = fc.constantFrom('valid', 'none', 'malformed');

const requestCase = fc.record({
  credentials,
  badCredential: nastyString,
  pathParams: fc.array(pathParamValue, { minLength: 4, maxLength: 4 }),
  query: fc.array(fc.record({ text: nastyString, raw: fc.boolean(), repeat: fc.boolean() }), {
    minLength: 6,
    maxLength: 6,
  }),
  extraQuery: fc.option(fc.record({ name: nastyString, value: nastyString }), { nil: undefined }),
  body: bodyCase,
});

type RequestCase = typeof requestCase extends fc.Arbitrary<infer T> ? T : never;

function buildRequest(op: Operation, c: RequestCase): InjectOptions {
  let paramIndex = 0;
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = c.pathParams[paramIndex++ % c.pathParams.length];
    if (value === undefined)
      return encodeURIComponent(op.method === 'DELETE' ? 'no-such-id' : fixtureId(op.path, name));
    return encodeForUrl(value.text, value.raw);
  });
  const query: string[] = [];
  op.query.forEach((param, i) => {
    const value = c.query[i % c.query.length];
    if (!value) return;
    const encoded = `${param.name}=${encodeForUrl(value.text, value.raw)}`;
    query.push(encoded);
    if (value.repeat) query.push(encoded);
  });
  if (c.extraQuery)
    query.push(`${encodeForUrl(c.extraQuery.name, false)}=${encodeForUrl(c.extraQuery.value, false)}`);

  const headers: Record<string, string> = {};
  const bad = asHeaderValue(c.badCredential);
  if (op.scope === 'partner') {
    if (c.credentials === 'valid')
      Object.assign(headers, { 'x-partner-id': setup.partnerId, 'x-api-key': setup.apiKey });
    if (c.credentials === 'malformed')
      Object.assign(headers, { 'x-partner-id': bad, 'x-api-key': setup.apiKey });
  } else if (op.scope === 'admin') {
    if (c.credentials === 'valid') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
    if (c.credentials === 'malformed') headers.authorization = `Bearer ${bad}`;
  } else if (op.scope === 'user') {
    if (c.credentials === 'valid') headers.cookie = userCookie;
    if (c.credentials === 'malformed') headers.cookie = `mrs_session=${bad}`;
  } else if (c.credentials === 'malformed') {
    headers['x-request-id'] = bad;
  }

  const request: InjectOptions = {
    method: op.method,
    url: `${path}${query.length ? `?${query.join('&')}` : ''}`,
    remoteAddress: '127.0.0.1',
    headers,
  };
  if (op.body && op.method !== 'GET' && op.method !== 'DELETE') {
    const b = c.body;
    if (b.kind === 'bytes') {
      if (b.contentType) headers['content-type'] = b.contentType;
      request.payload = b.bytes;
    } else {
      let value: unknown = validValue(op.body);
      if (b.kind === 'replace') value = b.value;
      else if (b.kind === 'extra' && typeof value === 'object' && value !== null) {
        (value as Record<string, unknown>)[b.name] = b.value;
      } else if (b.kind === 'mutate') {
        const paths = propertyPaths(op.body);
        const at = paths[b.at % Math.max(1, paths.length)];
        if (at && typeof value === 'object' && value !== null)
          setAt(value as Record<string, unknown>, at, b.value, b.remove);
        else value = b.value;
      }
      headers['content-type'] = 'application/json';
      request.payload = JSON.stringify(value) ?? 'null';
    }
  }
  return request;
}

// --- The property ---------------------------------------------------------------------------------

const CATALOG = new Map<number, { name: ErrorName; status: number }>(
  Object.entries(ERRORS).map(([name, spec]) => [spec.code, { name: name as ErrorName, status: spec.status }]),
);

/** Why the answer breaks the error contract, or undefined when it keeps it. */
function contractBreach(status: number, contentType: unknown, body: string): string | undefined {
  if (status >= 500) return `a ${status}`;
  if (status < 400) return undefined;
  if (typeof contentType !== 'string' || !contentType.startsWith('application/json'))
    return `content type ${String(contentType)}`;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return 'a body that is not JSON';
  }
  const keys = Object.keys(parsed).sort();
  const extra = keys.filter((key) => !['code', 'name', 'message', 'field'].includes(key));
  if (extra.length > 0 || !['code', 'name', 'message'].every((key) => keys.includes(key)))
    return `body keys ${keys.join(',')}`;
  const entry = CATALOG.get(parsed.code as number);
  if (!entry || entry.name !== parsed.name)
    return `code ${String(parsed.code)} / name ${String(parsed.name)} not in the catalog`;
  if (entry.status !== status)
    return `status ${status} but the catalog says ${entry.status} for ${entry.name}`;
  if (typeof parsed.message !== 'string') return 'a message that is not a string';
  if (parsed.field !== undefined && typeof parsed.field !== 'string') return 'a field that is not a string';
  return undefined;
}

describe('fuzz from /openapi.json', () => {
  it(
    'every operation: no 5xx, the error body on every refusal, nothing changed by a refusal',
    async () => {
      expect(operations.length).toBeGreaterThan(40);
      const runsPerOperation = Math.max(3, Math.ceil(RUNS / operations.length));
      let fingerprint = await databaseFingerprint(ctx.database.db);
      const refusals = new Map<number, number>();
      for (const [index, op] of operations.entries()) {
        await fc.assert(
          fc.asyncProperty(requestCase, async (c) => {
            const request = buildRequest(op, c);
            const url = String(request.url);
            const response = await ctx.app.inject(request);
            const breach = contractBreach(
              response.statusCode,
              response.headers['content-type'],
              response.body,
            );
            if (breach) {
              throw new Error(
                `${op.method} ${op.path}: ${breach}\n${request.method} ${url.slice(0, 300)}\n${response.body.slice(0, 300)}`,
              );
            }
            const after = await databaseFingerprint(ctx.database.db);
            if (response.statusCode >= 400) {
              refusals.set(response.statusCode, (refusals.get(response.statusCode) ?? 0) + 1);
              if (after !== fingerprint)
                throw new Error(
                  `${op.method} ${op.path}: a refused request (${response.statusCode}) changed the database\n${url.slice(0, 300)}`,
                );
            }
            // An accepted request may write; the next refusal is compared with what it left.
            fingerprint = after;
          }),
          { seed: SEED + index, numRuns: runsPerOperation, endOnFailure: true },
        );
      }
      // The run refused things for several reasons (a fuzzer that only ever met 401 proves little).
      expect([...refusals.keys()]).toEqual(expect.arrayContaining([400, 401, 404]));
    },
    Math.max(120_000, RUNS * 200),
  );
});
