// The OpenAPI document (/openapi.json) and the error catalog (/docs/errors), through HTTP: every
// operation has a unique camelCase operationId, every error it lists is in the catalog, the domain
// objects are shared components, every JSON body and success answer has an example that its schema
// accepts, and the catalog served matches src/errors.ts and docs/errors.md.
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../src/errors.ts';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { transformDocument, transformRoute } from '../src/http/openapi.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped (as in src/http/server.ts).
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Media = {
  schema?: Record<string, unknown>;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  tags: Array<{ name: string; description: string }>;
  components: { schemas: Record<string, Record<string, unknown>> };
  'x-error-catalog': string;
};
type Operation = {
  operationId?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};

describe('OpenAPI document', () => {
  let ctx: TestContext;
  let doc: Document;
  const operations = (of: Document = doc) =>
    Object.entries(of.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    );
  /** The operations whose id (the route's own schema.operationId) is missing or not camelCase. */
  const withoutId = (of: Document) =>
    operations(of)
      .filter(({ op }) => !op.operationId || !/^[a-z][A-Za-z0-9]*$/.test(op.operationId))
      .map(({ key }) => key);

  beforeAll(async () => {
    ctx = await startTestApp();
    doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  }, 120_000);
  afterAll(async () => ctx?.close());

  it('gives every operation a unique camelCase operationId, a description and declared tags', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(80);
    const ids = ops.map(({ op }) => op.operationId);
    expect(withoutId(doc)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const tagNames = new Set(doc.tags.map((t) => t.name));
    for (const { key, op } of ops) {
      expect(op.description, key).toMatch(/\S/);
      for (const tag of op.tags ?? []) expect(tagNames.has(tag), `${key} tag ${tag}`).toBe(true);
    }
    // The spec's operations keep its names.
    const byId = new Map(ops.map(({ key, op }) => [op.operationId, key]));
    expect(byId.get('checkLink')).toBe('GET /v1/mission-users');
    expect(byId.get('loginRedirect')).toBe('GET /v1/mission-users/auth');
    expect(byId.get('connect')).toBe('POST /v1/mission-users/connect');
    expect(byId.get('achieve')).toBe('POST /v1/achieve');
  });

  it('takes each operation id from its route, so a route without one fails the check above', async () => {
    // The same document hooks as the service, over two routes: one declares its id, one forgets.
    const app = Fastify();
    await app.register(swagger, {
      transform: transformRoute,
      transformObject: (documents) =>
        'openapiObject' in documents
          ? (transformDocument({
              openapiObject: documents.openapiObject as Record<string, unknown>,
            }) as never)
          : documents.swaggerObject,
      openapi: { openapi: '3.1.0', info: { title: 'two routes', version: '1' } },
    });
    app.get('/declared', { schema: { operationId: 'getDeclared', summary: 'Declared' } }, async () => null);
    app.get('/forgotten', { schema: { summary: 'Forgotten' } }, async () => null);
    await app.ready();
    const small = app.swagger() as unknown as Document;
    await app.close();
    expect(small.paths['/declared']?.get?.operationId).toBe('getDeclared');
    expect(withoutId(small)).toEqual(['GET /forgotten']);
  });

  it("lists a scope's credential errors on the routes that scope registered, not by URL prefix", () => {
    const errorsOf = (method: string, path: string) =>
      Object.keys(doc.paths[path]?.[method]?.responses ?? {});
    // An operator route answers 401 and 403 for its bearer; the first OWNER's sign-in, under the same
    // prefix but a public route (the one-time code is its proof), has no bearer to refuse.
    expect(errorsOf('get', '/admin/v1/partners')).toEqual(expect.arrayContaining(['401', '403']));
    expect(doc.paths['/admin/v1/first-sign-in']?.post?.description).toContain('No credentials.');
    expect(errorsOf('post', '/admin/v1/first-sign-in')).not.toContain('401');
    expect(errorsOf('post', '/admin/v1/first-sign-in')).not.toContain('403');
    // The partner and user scopes likewise.
    expect(errorsOf('post', '/v1/achieve')).toEqual(expect.arrayContaining(['401']));
    expect(doc.paths['/v1/me/claims']?.get?.description).toContain('mrs_session');
    expect(doc.paths['/v1/mission-users/auth']?.get?.description).not.toContain('X-Api-Key');
  });

  it('lists per status only catalog errors of that status, each with an example body', () => {
    for (const { key, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        const examples = response.content?.['application/json']?.examples;
        if (!/^[45]/.test(status)) continue;
        expect(examples, `${key} ${status}`).toBeDefined();
        for (const [name, { value }] of Object.entries(examples ?? {})) {
          const spec = ERRORS[name as keyof typeof ERRORS];
          expect(spec, `${key} ${status} ${name}`).toBeDefined();
          expect(spec.status).toBe(Number(status));
          expect(value).toMatchObject({ code: spec.code, name });
        }
      }
    }
    const achieve = doc.paths['/v1/achieve']!.post!.responses;
    const names = (status: string) =>
      Object.keys(achieve[status]?.content?.['application/json']?.examples ?? {});
    expect(names('404')).toContain('NOT_FOUND_MISSION');
    expect(names('401')).toContain('PARTNER_UNAUTHORIZED');
    expect(names('429')).toEqual(['RATE_LIMITED']);
    expect(doc.components.schemas.ErrorBody).toBeDefined();
  });

  it('emits enums as enum, not as plain strings', () => {
    const status = (
      doc.paths['/admin/v1/claims']?.get as unknown as {
        parameters: Array<{ name: string; schema: unknown }>;
      }
    ).parameters.find((p) => p.name === 'status');
    expect(status?.schema).toEqual({ $ref: '#/components/schemas/ClaimStatus' });
    expect(doc.components.schemas.ClaimStatus).toMatchObject({
      type: 'string',
      enum: ['RESERVED', 'REQUESTED', 'REJECTED', 'SUCCEEDED', 'FAILED'],
    });
  });

  it('declares the domain objects and enums once, as components the operations refer to', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'AchieveRequest',
      'ConnectRequest',
      'LinkCheckResult',
      'Partner',
      'ApiKey',
      'Promotion',
      'MissionGroup',
      'Mission',
      'Asset',
      'Budget',
      'Claim',
      'Draw',
      'Ticket',
      'Mapping',
      'WebhookEndpoint',
      'WebhookMessage',
      'AuditEvent',
      'AdminCredential',
      'MyMission',
      'Balance',
      'ChainNetwork',
      'ChainAsset',
      'RewardWallet',
      'PromotionType',
      'PromotionStatus',
      'RecurrenceType',
      'BudgetType',
      'AssetType',
      'ClaimStatus',
      'TicketFilter',
      'BrowserType',
      'Region',
    ])
      expect(names, name).toContain(name);
    const json = (op: Operation | undefined, status: string) =>
      op?.responses[status]?.content?.['application/json']?.schema;
    expect(doc.paths['/v1/achieve']!.post!.requestBody?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/AchieveRequest',
    });
    expect(json(doc.paths['/admin/v1/missions/{missionId}']?.get, '200')).toEqual({
      $ref: '#/components/schemas/Mission',
    });
    expect(json(doc.paths['/admin/v1/mission-groups/{groupId}/missions']?.get, '200')).toMatchObject({
      properties: { items: { items: { $ref: '#/components/schemas/Mission' } } },
    });
    // Every component is used (by an operation or a component), and every $ref names one.
    const text = JSON.stringify({ paths: doc.paths, components: doc.components });
    for (const name of names) expect(text.includes(`"#/components/schemas/${name}"`), name).toBe(true);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(names).toContain(name);
  });

  it('gives every JSON body and success answer an example that its schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // Each schema is compiled with the components beside it, so its $refs resolve.
    const failures = (schema: Record<string, unknown>, value: unknown): unknown => {
      const validate = ajv.compile({ ...schema, components: doc.components });
      return validate(value) ? undefined : validate.errors;
    };
    let bodies = 0;
    let answers = 0;
    for (const { key, op } of operations()) {
      const media: Array<[string, Media]> = [];
      const body = op.requestBody?.content?.['application/json'];
      if (body) media.push(['request body', body]);
      for (const [status, response] of Object.entries(op.responses)) {
        const answer = response.content?.['application/json'];
        if (/^2/.test(status) && answer && answer.schema?.type !== 'null') media.push([status, answer]);
      }
      for (const [where, { schema, example, examples }] of media) {
        if (where === 'request body') bodies += 1;
        else answers += 1;
        const values = example !== undefined ? [example] : Object.values(examples ?? {}).map((e) => e.value);
        expect(values.length, `${key} ${where} has an example`).toBeGreaterThan(0);
        for (const value of values) expect(failures(schema ?? {}, value), `${key} ${where}`).toBeUndefined();
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(25);
    expect(answers).toBeGreaterThanOrEqual(75);
    // The examples declared on the components themselves hold too.
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      for (const value of (schema.examples as unknown[] | undefined) ?? [])
        expect(failures(schema, value), `component ${name}`).toBeUndefined();
    }
    // The spec's operations show the spec's fields.
    expect(doc.paths['/v1/achieve']!.post!.requestBody?.content?.['application/json']).toMatchObject({
      examples: {
        example1: {
          value: { partnerUid: 'user-1234', missionKey: 'daily-login', completed: false, metadata: {} },
        },
      },
    });
  });

  it('serves the error catalog at the address the document names, matching src/errors.ts', async () => {
    expect(doc['x-error-catalog']).toBe('/docs/errors');
    const response = await ctx.app.inject({ method: 'GET', url: '/docs/errors' });
    expect(response.statusCode).toBe(200);
    const { items } = response.json<{ items: Array<Record<string, unknown>> }>();
    expect(items).toHaveLength(Object.keys(ERRORS).length);
    for (const [name, spec] of Object.entries(ERRORS)) {
      expect(items).toContainEqual({ name, ...spec });
      expect(spec.description.length).toBeGreaterThan(20);
    }
    const page = await ctx.app.inject({
      method: 'GET',
      url: '/docs/errors',
      headers: { accept: 'text/html' },
    });
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('NOT_FOUND_MISSION');
  });

  it('documents every catalog code in docs/errors.md', async () => {
    const text = await readFile(new URL('../docs/errors.md', import.meta.url), 'utf8');
    for (const [name, spec] of Object.entries(ERRORS)) {
      expect(text, name).toMatch(new RegExp(`\\| ${spec.code}\\s*\\| ${name}\\s*\\|`));
    }
  });
});
