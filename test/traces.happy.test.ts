// Traces (docs/operations.md "Traces"): the real service and payout worker processes export to an
// OTLP/HTTP receiver this test runs; one achieve completion gives one trace holding the achieve HTTP
// span (with our request id) and its SQL, and the worker's payout span links back to it. Without an
// endpoint, the processes load nothing of OpenTelemetry.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTracing } from '../src/config.ts';
import { OUT_OF_THE_WAY, setupMission, startTestApp } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { freePort } from './free-port.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'mrs-traces-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
/** A span as the receiver keeps it (OTLP JSON, flattened). */
interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

/** An OTLP/HTTP receiver of JSON trace exports (what @opentelemetry/exporter-trace-otlp-http sends). */
async function startReceiver() {
  const spans: ReceivedSpan[] = [];
  const attributes = (list: Array<{ key: string; value: OtlpValue }> = []) =>
    Object.fromEntries(
      list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue]),
    );
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      expect(request.url).toBe('/v1/traces');
      expect(request.headers['content-type']).toContain('application/json');
      const exported = JSON.parse(body) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: OtlpValue }> };
          scopeSpans: Array<{
            scope: { name: string };
            spans: Array<{
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              attributes?: Array<{ key: string; value: OtlpValue }>;
              links?: Array<{ traceId: string; spanId: string }>;
            }>;
          }>;
        }>;
      };
      for (const resourceSpans of exported.resourceSpans) {
        const service = String(attributes(resourceSpans.resource.attributes)['service.name']);
        for (const scopeSpans of resourceSpans.scopeSpans)
          for (const span of scopeSpans.spans)
            spans.push({
              service,
              scope: scopeSpans.scope.name,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              attributes: attributes(span.attributes),
              links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
            });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    spans,
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A process as `npm start` / `npm run worker` run it: tsx, then the telemetry `--import`. */
function startProcess(entry: string, env: Record<string, string>, extraImports: string[] = []) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      ...extraImports.flatMap((file) => ['--import', file]),
      '--import',
      './src/telemetry/register.ts',
      entry,
    ],
    {
      env: { ...process.env, ...OUT_OF_THE_WAY, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function healthy(base: string, output: () => string) {
  await waitFor(
    `the service at ${base}: ${output()}`,
    () =>
      fetch(`${base}/readyz`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      ),
    120_000,
  );
}

describeUnless(needsPostgres())('traces of an achieve completion and its payout (PostgreSQL)', () => {
  it('one trace holds the achieve span, its request id and its SQL; the payout span links to it', async () => {
    const ctx = await startTestApp();
    const receiver = await startReceiver();
    const processes: Array<ReturnType<typeof startProcess>> = [];
    try {
      const setup = await setupMission(ctx, { missionKey: 'traced', recurrence: 'ONE_TIME' });
      const assetId = (
        await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'TRC', name: 'Traced', decimals: 0 })
      ).json<{ id: string }>().id;
      const budgetId = (
        await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'traced', total: '100' })
      ).json<{ id: string }>().id;
      expect(
        (
          await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
            type: 'FIXED',
            budgetId,
            amount: '5',
          })
        ).statusCode,
      ).toBe(200);
      const crowd = Array.from({ length: 8 }, (_, i) => `crowd-user-${i}`);
      await linkUsers(ctx, setup.partnerId, ['traced-user', ...crowd]);

      const port = await freePort();
      const common = {
        DATABASE_URL: ctx.databaseUrl as string,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        // Export within a fraction of a second (the default waits 5 s).
        OTEL_BSP_SCHEDULE_DELAY: '100',
      };
      const service = startProcess('src/main.ts', {
        ...common,
        PORT: String(port),
        PAYOUT_WORKER: 'false',
        OTEL_SERVICE_NAME: 'mrs-api',
      });
      const worker = startProcess('src/payout/worker-cli.ts', {
        ...common,
        PAYOUT_IDLE_MS: '50',
        OTEL_SERVICE_NAME: 'mrs-worker',
      });
      processes.push(service, worker);
      const base = `http://127.0.0.1:${port}`;
      await healthy(base, service.output);

      const requestId = 'trace-test-achieve-0001';
      const response = await fetch(`${base}/v1/achieve`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-partner-id': setup.partnerId,
          'x-api-key': setup.apiKey,
          'x-request-id': requestId,
        },
        body: JSON.stringify({ partnerUid: 'traced-user', missionKey: 'traced', completed: true }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe(requestId);

      // The worker pays the claim, and the claim kept the W3C trace context of the achieve.
      const claim = await waitFor('the claim to be paid', async () => {
        const row = await ctx.database.db
          .selectFrom('claims')
          .select(['status', 'trace_context'])
          .where('partner_uid', '=', 'traced-user')
          .executeTakeFirst();
        return row?.status === 'SUCCEEDED' ? row : undefined;
      });
      expect(claim.trace_context).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

      const spans = receiver.spans;
      const achieve = await waitFor('the achieve span', () =>
        spans.find((s) => s.attributes['http.request.id'] === requestId),
      );
      expect(achieve).toMatchObject({ service: 'mrs-api', scope: '@fastify/otel', name: 'POST /v1/achieve' });
      expect(achieve.parentSpanId).toBeUndefined();
      expect(achieve.attributes['http.route']).toBe('/v1/achieve');
      expect(claim.trace_context?.split('-')[1]).toBe(achieve.traceId);

      // Every span of the trace descends from the achieve span; among them the SQL of the completion.
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const descendsFromAchieve = (span: ReceivedSpan) => {
        for (
          let s: ReceivedSpan | undefined = span;
          s;
          s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined
        )
          if (s.spanId === achieve.spanId) return true;
        return false;
      };
      const completionSql = await waitFor('the SQL of the completion', () =>
        spans.find(
          (s) =>
            s.traceId === achieve.traceId &&
            s.scope === '@opentelemetry/instrumentation-pg' &&
            String(s.attributes['db.query.text']).includes('INSERT INTO claims'),
        ),
      );
      const trace = spans.filter((s) => s.traceId === achieve.traceId);
      expect(trace.every(descendsFromAchieve)).toBe(true);
      expect(descendsFromAchieve(completionSql)).toBe(true);
      // The mission lookup and the credential check also ran as SQL spans of this request.
      expect(
        trace.filter((s) => s.scope === '@opentelemetry/instrumentation-pg' && s.name.startsWith('pg.query'))
          .length,
      ).toBeGreaterThanOrEqual(2);

      // The worker process's payout span links to the achieve's trace, and holds the ledger's SQL.
      const payout = await waitFor('the payout span', () =>
        spans.find((s) => s.name === 'payout batch' && s.links.some((l) => l.traceId === achieve.traceId)),
      );
      expect(payout.service).toBe('mrs-worker');
      expect(payout.traceId).not.toBe(achieve.traceId);
      const linked = payout.links.find((l) => l.traceId === achieve.traceId);
      expect(trace.map((s) => s.spanId)).toContain(linked?.spanId);
      const payoutSql = await waitFor('the SQL of the payout', () => {
        const found = spans.filter(
          (s) => s.parentSpanId === payout.spanId && s.scope === '@opentelemetry/instrumentation-pg',
        );
        return found.length > 0 ? found : undefined;
      });
      expect(payoutSql.some((s) => /ledger|claim/i.test(String(s.attributes['db.query.text'])))).toBe(true);

      // Concurrent completions are written in batches (one statement for several requests): each
      // request's completion SQL is in its own trace, or under a batch span that links to its trace.
      const answers = await Promise.all(
        crowd.map((partnerUid, i) =>
          fetch(`${base}/v1/achieve`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-partner-id': setup.partnerId,
              'x-api-key': setup.apiKey,
              'x-request-id': `trace-test-crowd-${i}`,
            },
            body: JSON.stringify({ partnerUid, missionKey: 'traced', completed: true }),
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(crowd.map(() => 200));
      const linksTo = (span: ReceivedSpan, traceId: string) => {
        for (
          let s: ReceivedSpan | undefined = span;
          s;
          s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined
        )
          if (s.traceId === traceId || s.links.some((l) => l.traceId === traceId)) return true;
        return false;
      };
      for (let i = 0; i < crowd.length; i++) {
        const request = await waitFor(`the span of crowd request ${i}`, () =>
          spans.find((s) => s.attributes['http.request.id'] === `trace-test-crowd-${i}`),
        );
        await waitFor(`the completion SQL of crowd request ${i}`, () => {
          for (const s of spans) byId.set(s.spanId, s);
          return spans.find(
            (s) =>
              s.scope === '@opentelemetry/instrumentation-pg' &&
              String(s.attributes['db.query.text']).includes('INSERT INTO claims') &&
              linksTo(s, request.traceId),
          );
        });
      }

      service.child.kill('SIGTERM');
      worker.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(await worker.exited).toBe(0);
    } finally {
      for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
      await receiver.close();
      await ctx.close();
    }
  }, 240_000);
});

describe('tracing off', () => {
  it('with no endpoint configured, the service loads no OpenTelemetry module and still answers', async () => {
    const probeFile = path.join(scratch, 'modules.txt');
    const port = await freePort();
    const service = startProcess(
      'src/main.ts',
      {
        PORT: String(port),
        // Embedded PGlite on both passes: this test must not migrate the shared server's own database.
        DATA_DIR: path.join(scratch, 'data'),
        DATABASE_URL: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        MODULE_PROBE_FILE: probeFile,
        ADMIN_TOKEN: 'traces-test-owner-token',
      },
      ['./test/telemetry/module-probe.mjs'],
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      await healthy(base, service.output);
      // A request through the database (the coalescer, the hooks on the hot path) while off.
      const answer = await fetch(`${base}/admin/v1/partners`, {
        headers: { authorization: 'Bearer traces-test-owner-token' },
      });
      expect(answer.status).toBe(200);
      const loaded = readFileSync(probeFile, 'utf8').split('\n');
      // The probe sees packages (so an empty answer below is not a blind probe)...
      expect(loaded.some((url) => url.includes('/node_modules/fastify/'))).toBe(true);
      expect(loaded.some((url) => url.includes('/src/telemetry/register.ts'))).toBe(true);
      // ...and none of OpenTelemetry's, nor the loader hook that patching would need.
      expect(
        loaded.filter((url) =>
          /@opentelemetry|@fastify\/otel|import-in-the-middle|telemetry\/tracing/.test(url),
        ),
      ).toEqual([]);
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  }, 180_000);
});

describe('tracing configuration', () => {
  it('is off without an endpoint or when disabled, and names a bad variable', () => {
    expect(parseTracing({})).toBeUndefined();
    expect(
      parseTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined();
    expect(parseTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      tracesEndpoint: 'http://collector:4318/v1/traces',
      serviceName: 'mission-reward-service',
    });
    expect(
      parseTracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/v1/t',
        OTEL_SERVICE_NAME: 'mrs-worker',
      }),
    ).toEqual({ tracesEndpoint: 'https://traces.example/v1/t', serviceName: 'mrs-worker' });
    expect(() => parseTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() =>
      parseTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
  });
});
