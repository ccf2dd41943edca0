// The OpenAPI document's finishing (docs/openapi.md): tags, descriptions, the error
// responses grouped per status with an example per code, shared component schemas (`component(...)`
// in src/http/schemas.ts), enums, and an example on every JSON body and success answer. @fastify/swagger
// builds the document from the route schemas; the two hooks here (transform per route,
// transformObject once) complete it.
import type { FastifyContextConfig } from 'fastify';
import { ERRORS } from '../errors.ts';
import type { ErrorName } from '../errors.ts';
import type { RouteScope } from './route-config.ts';
import { COMPONENT_KEY, ERROR_NAMES_KEY, ErrorBody } from './schemas.ts';
import { groupBy } from '../domain/group-by.ts';

/** Where the error catalog is served (JSON; HTML to a browser). */
export const ERROR_CATALOG_PATH = '/docs/errors';

/**
 * Where a schema's `examples` wait while @fastify/swagger builds the document: it would move the
 * examples of a body's or answer's top-level schema to its media object, so a component used there
 * and nested elsewhere would come out twice, once without its examples.
 */
const EXAMPLES_KEY = 'x-schema-examples';

/** The document's tags, in order, each with what it groups. */
export const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'partner', description: 'The partner API: link check, login redirect, connect and achieve.' },
  { name: 'login', description: 'Browser pages of the login journey (the login provider and LIFF).' },
  { name: 'user', description: "The mission page's API for the signed-in end user (session cookie)." },
  { name: 'user: wallet', description: "The signed-in user's wallet that chain rewards are paid to." },
  { name: 'public', description: 'Views anyone may read without credentials.' },
  { name: 'operations', description: 'Health, readiness, the environment and the error catalog.' },
  { name: 'admin: credentials', description: 'Operator credentials and their roles.' },
  { name: 'admin: partners', description: 'Partners and their API keys.' },
  { name: 'admin: promotions', description: 'Promotions (a partner campaign with its period).' },
  { name: 'admin: mission groups', description: 'Mission groups inside a promotion.' },
  { name: 'admin: missions', description: 'Missions inside a mission group.' },
  { name: 'admin: users', description: "Partner users' progress and links." },
  {
    name: 'admin: rewards',
    description: 'Reward assets, budgets, rewards on missions, claims, lucky draws and balances.',
  },
  { name: 'admin: reports', description: 'Read-only reports for the console.' },
  { name: 'admin: chain', description: 'EVM networks, chain assets and reward wallets (chain payouts).' },
  { name: 'admin: webhooks', description: 'Webhook endpoints and the messages sent to them.' },
  { name: 'admin: audit', description: 'The append-only log of every operator write.' },
];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A deep copy where each schema's $id becomes a component marker (swagger drops $id) and its
 * examples are parked until transformDocument.
 */
function markComponents(value: unknown, parkExamples: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => markComponents(item, parkExamples));
  if (!isObject(value)) return value;
  const copy: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$id') copy[COMPONENT_KEY] = inner;
    else if (parkExamples && key === 'examples' && Array.isArray(inner)) copy[EXAMPLES_KEY] = inner;
    else copy[key] = markComponents(inner, parkExamples);
  }
  return copy;
}

/** The route schema marked: examples parked in bodies and answers (parameters keep swagger's way). */
function markRouteSchema(schema: Json): Json {
  return Object.fromEntries(
    Object.entries(schema).map(([part, value]) => [
      part,
      markComponents(value, part === 'body' || part === 'response'),
    ]),
  );
}

const SCOPE_ERRORS: Record<RouteScope, ErrorName[]> = {
  admin: ['ADMIN_UNAUTHORIZED', 'ADMIN_PERMISSION_DENIED'],
  partner: ['PARTNER_UNAUTHORIZED', 'API_KEY_WRONG_ENVIRONMENT', 'PARTNER_DISABLED'],
  user: ['USER_UNAUTHORIZED'],
  open: [],
};
const SCOPE_TEXT: Record<RouteScope, string> = {
  admin:
    'Operator API: a bearer admin credential; reading needs the VIEWER role, writing OPERATOR ' +
    '(credential management OWNER).',
  partner: 'Partner API: the X-Partner-Id and X-Api-Key headers.',
  user: "End-user API: the mission page's session cookie (mrs_session).",
  open: 'No credentials.',
};

/** The error names an operation may answer: its own, then those of its scope and of every request. */
export function operationErrors(
  method: string,
  url: string,
  scope: RouteScope,
  hasInput: boolean,
  declared: readonly ErrorName[],
): ErrorName[] {
  const names = new Set<ErrorName>(declared);
  if (hasInput) names.add('VALIDATION_FAILED');
  names.add('INVALID_CHARACTER');
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
    names.add('MALFORMED_JSON');
    names.add('UNSUPPORTED_MEDIA_TYPE');
    names.add('PAYLOAD_TOO_LARGE');
  }
  for (const name of SCOPE_ERRORS[scope]) names.add(name);
  // The health checks are exempt from the rate limits (docs/security.md); everything else is limited.
  if (url !== '/healthz' && url !== '/readyz') names.add('RATE_LIMITED');
  names.add('SERVICE_UNAVAILABLE');
  return [...names];
}

/** The example body of an error code. */
export function errorExample(name: ErrorName): { code: number; name: ErrorName; message: string } {
  return { code: ERRORS[name].code, name, message: ERRORS[name].description };
}

/**
 * Fastify's route-level hook: the scope's and every request's errors, components marked. The
 * operation id is the route's own (`schema.operationId`), its scope the one that registered it
 * (`config.scope`, src/http/route-config.ts).
 */
export function transformRoute({
  schema,
  url,
  route,
}: {
  schema: unknown;
  url: string;
  route: { method: string | string[]; config?: FastifyContextConfig };
}): { schema: Json; url: string } {
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) as string;
  const scope: RouteScope = route.config?.scope ?? 'open';
  const marked = markRouteSchema(isObject(schema) ? schema : {});
  // Errors: the declared ones (errorResponses) with the scope's and every request's, grouped per status.
  const response = isObject(marked.response) ? { ...marked.response } : {};
  const declared: ErrorName[] = [];
  for (const [status, body] of Object.entries(response)) {
    if (isObject(body) && Array.isArray(body[ERROR_NAMES_KEY])) {
      declared.push(...(body[ERROR_NAMES_KEY] as ErrorName[]));
      delete response[status];
    }
  }
  const hasInput = ['params', 'querystring', 'body'].some((part) => marked[part] !== undefined);
  const names = operationErrors(method, url, scope, hasInput, declared);
  const byStatus = groupBy(names, (name) => ERRORS[name].status);
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    response[status] = {
      type: 'object',
      description: group.map((name) => `${ERRORS[name].code} ${name}: ${ERRORS[name].description}`).join(' '),
      [ERROR_NAMES_KEY]: group,
    };
  }
  // A page (no declared success response) answers 200 with HTML.
  if (!Object.keys(response).some((status) => /^[23]/.test(status)))
    response[200] = { type: 'null', description: 'The page (text/html)' };
  marked.response = response;
  if (typeof marked.description !== 'string' || marked.description === '') {
    const summary = typeof marked.summary === 'string' ? marked.summary : String(marked.operationId);
    marked.description =
      `${summary}. ${SCOPE_TEXT[scope]} ` +
      `Errors (bodies {code, name, message}; catalog at ${ERROR_CATALOG_PATH}): ` +
      names.map((name) => `${ERRORS[name].status} ${name} (${ERRORS[name].code})`).join(', ') +
      '.';
  }
  // "/v1/me/" is the prefix's own route: it answers at /v1/me too, the form the document names.
  return { schema: marked, url: url === '/v1/me/' ? '/v1/me' : url };
}

/** An anyOf of single-value enums (TypeBox unions of literals) as one enum. */
function collapseEnums(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(collapseEnums);
  if (!isObject(value)) return value;
  const copy: Json = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = collapseEnums(inner);
  const anyOf = copy.anyOf;
  if (Array.isArray(anyOf) && anyOf.length > 0) {
    const literal = (item: unknown): unknown => {
      if (!isObject(item) || !Object.keys(item).every((k) => ['type', 'enum', 'const'].includes(k)))
        return undefined;
      if (Array.isArray(item.enum) && item.enum.length === 1) return item.enum[0];
      return item.const;
    };
    const values = anyOf.map(literal);
    if (values.every((v) => typeof v === 'string')) {
      delete copy.anyOf;
      return { type: 'string', enum: values, ...copy };
    }
  }
  return copy;
}

/** Whether every field of `part` is in `whole` with the same value. */
function sameOrPart(part: Json, whole: Json): boolean {
  return Object.entries(part).every(([key, value]) => JSON.stringify(whole[key]) === JSON.stringify(value));
}

/**
 * Hoists marked schemas into components/schemas, replacing each use by a $ref, and puts the parked
 * examples back. One name with two different schemas is a mistake in the route files: it throws.
 */
function hoistComponents(value: unknown, components: Json): unknown {
  if (Array.isArray(value)) return value.map((v) => hoistComponents(v, components));
  if (!isObject(value)) return value;
  const copy: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === EXAMPLES_KEY) copy.examples = inner;
    else if (key !== COMPONENT_KEY) copy[key] = hoistComponents(inner, components);
  }
  const name = value[COMPONENT_KEY];
  if (typeof name !== 'string') return copy;
  const known = components[name];
  // Swagger moves a parameter schema's description to the parameter: that use may lack it.
  if (isObject(known) && !sameOrPart(copy, known)) {
    if (!sameOrPart(known, copy)) throw new Error(`two different schemas are the component ${name}`);
  } else if (known !== undefined) return { $ref: `#/components/schemas/${name}` };
  components[name] = copy;
  return { $ref: `#/components/schemas/${name}` };
}

const EXAMPLE_INSTANT = '2026-11-24T09:00:00.000Z';

/**
 * An example value of a schema, built from the examples declared on it and its parts (components'
 * first examples, fields' examples, consts, enums, defaults). Undefined when a required string has
 * no example: test/openapi.happy.test.ts then names the operation, and the field needs one.
 */
function exampleOf(schema: unknown, components: Json): unknown {
  if (!isObject(schema)) return undefined;
  if (typeof schema.$ref === 'string')
    return exampleOf(components[schema.$ref.replace('#/components/schemas/', '')], components);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) {
    const values = schema.anyOf.map((variant) => exampleOf(variant, components));
    return values.find((v) => v !== undefined && v !== null) ?? values.find((v) => v !== undefined);
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => exampleOf(part, components));
    return parts.every(isObject) ? Object.assign({}, ...parts) : undefined;
  }
  switch (schema.type) {
    case 'object': {
      const required = Array.isArray(schema.required) ? schema.required : [];
      const value: Json = {};
      for (const [key, inner] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        const example = exampleOf(inner, components);
        if (example !== undefined) value[key] = example;
        else if (required.includes(key)) return undefined;
      }
      return value;
    }
    case 'array': {
      const item = exampleOf(schema.items, components);
      return item === undefined ? undefined : [item];
    }
    case 'string':
      return schema.format === 'date-time' ? EXAMPLE_INSTANT : undefined;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return undefined;
  }
}

/** Every JSON request body and success answer gets an example built from its schema (exampleOf). */
function finishExamples(document: Json, components: Json): void {
  for (const operations of Object.values(document.paths as Json)) {
    for (const operation of Object.values(operations as Json)) {
      if (!isObject(operation)) continue;
      const media: unknown[] = [];
      if (isObject(operation.requestBody) && isObject(operation.requestBody.content))
        media.push(operation.requestBody.content['application/json']);
      for (const [status, response] of Object.entries(
        isObject(operation.responses) ? operation.responses : {},
      ))
        if (/^2/.test(status) && isObject(response) && isObject(response.content))
          media.push(response.content['application/json']);
      for (const item of media) {
        if (!isObject(item) || !isObject(item.schema) || item.schema.type === 'null') continue;
        if (item.example !== undefined || item.examples !== undefined) continue;
        // Several examples of the schema (inline or its component) are all shown; an inline schema's
        // own examples move to the media object, as swagger would move them.
        const ref = typeof item.schema.$ref === 'string' ? item.schema.$ref.split('/').pop() : undefined;
        const target = ref === undefined ? item.schema : components[ref];
        const own = isObject(target) && Array.isArray(target.examples) ? target.examples : [];
        if (ref === undefined) delete item.schema.examples;
        if (own.length > 1) {
          item.examples = Object.fromEntries(own.map((value, i) => [`example${i + 1}`, { value }]));
          continue;
        }
        const example = own.length === 1 ? own[0] : exampleOf(item.schema, components);
        if (example !== undefined) item.example = example;
      }
    }
  }
}

/** Error responses: one ErrorBody $ref per status, with an example per code. */
function finishErrorResponses(document: Json): void {
  for (const operations of Object.values(document.paths as Json)) {
    for (const operation of Object.values(operations as Json)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      for (const response of Object.values(operation.responses)) {
        if (!isObject(response) || !isObject(response.content)) continue;
        const media = (response.content as Json)['application/json'];
        if (!isObject(media) || !isObject(media.schema)) continue;
        const names = media.schema[ERROR_NAMES_KEY];
        if (!Array.isArray(names)) continue;
        response.content = {
          'application/json': {
            schema: { $ref: '#/components/schemas/ErrorBody' },
            examples: Object.fromEntries(
              (names as ErrorName[]).map((name) => [
                name,
                { summary: `${ERRORS[name].code} ${name}`, value: errorExample(name) },
              ]),
            ),
          },
        };
      }
    }
  }
}

/** Fastify swagger's document-level hook: components, enums, error examples, tags, the catalog link. */
export function transformDocument({ openapiObject }: { openapiObject: Json }): Json {
  const components: Json = {};
  const document = hoistComponents(collapseEnums(openapiObject), components) as Json;
  const existing = isObject(document.components) ? document.components : {};
  const { $id: _id, ...errorBody } = ErrorBody as unknown as Json;
  const schemas = {
    ...(isObject(existing.schemas) ? existing.schemas : {}),
    ...components,
    ErrorBody: collapseEnums(errorBody),
  };
  document.components = {
    ...existing,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  };
  finishErrorResponses(document);
  finishExamples(document, schemas);
  document.tags = TAGS.map((tag) => ({ ...tag }));
  document['x-error-catalog'] = ERROR_CATALOG_PATH;
  return document;
}
