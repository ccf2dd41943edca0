// OpenTelemetry tracing, loaded only when an OTLP endpoint is configured (src/telemetry/register.ts):
// HTTP spans from @fastify/otel (with our request id), SQL spans from the pg instrumentation, and the
// real trace hooks (hooks.ts) for the coalescer's batches and the payout. Spans go over OTLP/HTTP
// (JSON) through a batching processor, off the request's path. docs/operations.md, "Traces".
import { register } from 'node:module';
import path from 'node:path';
import { context, propagation, trace, SpanKind, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Context, Link, SpanContext } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config.ts';
import { installTraceHooks } from './hooks.ts';
import type { TraceHooks } from './hooks.ts';

/** The attribute naming our request id (the `x-request-id` Fastify logs as `reqId` and answers). */
export const REQUEST_ID_ATTRIBUTE = 'http.request.id';
/** How many requests' spans a batch span links to (the SDK's own default limit on links is 128). */
const MAX_LINKS = 128;

const TRACER_NAME = 'mission-reward-service';

/** A stored W3C traceparent as a span context, or undefined when it is not one. */
function spanContextOf(traceparent: string | null | undefined): SpanContext | undefined {
  if (!traceparent) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, { traceparent });
  const spanContext = trace.getSpanContext(extracted);
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

function linksTo(spanContexts: Array<SpanContext | undefined>): Link[] {
  const seen = new Set<string>();
  const links: Link[] = [];
  for (const spanContext of spanContexts) {
    if (spanContext === undefined || seen.has(spanContext.spanId) || links.length >= MAX_LINKS) continue;
    seen.add(spanContext.spanId);
    links.push({ context: spanContext });
  }
  return links;
}

function realHooks(provider: NodeTracerProvider): TraceHooks {
  const tracer = trace.getTracer(TRACER_NAME);
  return {
    traceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },
    capture: () => context.active(),
    inBatch(name, items, run) {
      const contexts = items as Context[];
      if (contexts.length === 1) return context.with(contexts[0] as Context, run);
      // A batch serves several requests: its span is a child of the first request (so that trace
      // holds the statements), linked to every request of the batch; each request's trace links back.
      const first = (contexts[0] as Context | undefined) ?? ROOT_CONTEXT;
      const span = tracer.startSpan(
        name,
        {
          kind: SpanKind.INTERNAL,
          attributes: { 'mrs.batch.size': contexts.length },
          links: linksTo(contexts.map((c) => trace.getSpanContext(c))),
        },
        first,
      );
      const link = { context: span.spanContext(), attributes: { 'mrs.batch': name } };
      for (const item of contexts.slice(1)) trace.getSpan(item)?.addLink(link);
      return context.with(trace.setSpan(first, span), async () => {
        try {
          return await run();
        } finally {
          span.end();
        }
      });
    },
    inLinkedSpan(name, traceparents, run) {
      const span = tracer.startSpan(
        name,
        {
          kind: SpanKind.INTERNAL,
          root: true,
          attributes: { 'mrs.claims': traceparents.length },
          links: linksTo(traceparents.map(spanContextOf)),
        },
        ROOT_CONTEXT,
      );
      return context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
        try {
          return await run();
        } catch (error) {
          span.recordException(error as Error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Starts tracing in this process: must run before `pg` and `fastify` are imported (from
 * register.ts, an `--import` module), so that the loader hook sees pg's import.
 */
export function startTracing(config: TracingConfig): TraceHooks {
  // pg is CommonJS imported from ESM: import-in-the-middle's loader hook lets the pg
  // instrumentation patch it; `include` keeps the hook off every other module.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: ['pg', 'pg-pool'] },
  });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: config.serviceName,
      'process.command': path.basename(process.argv[1] ?? ''),
      'process.pid': process.pid,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesEndpoint }))],
  });
  // The async-hooks context manager and the W3C trace-context propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // SQL outside any request or payout span (polls, upkeep, LISTEN) would only be noise.
      new PgInstrumentation({ requireParentSpan: true }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // A span per request and one for its handler; a span for each of the ~12 hooks of every
        // request would cost more than it tells (the auth hook's SQL still shows, under the request).
        instrumentHooks: false,
        // Liveness and readiness probes every few seconds are not worth a trace each.
        ignorePaths: (route: { url?: string }) => route.url === '/healthz' || route.url === '/readyz',
        requestHook(span, request) {
          span.setAttribute(REQUEST_ID_ATTRIBUTE, request.id);
          span.updateName(`${request.method} ${request.routeOptions.url ?? 'unknown route'}`);
        },
      }),
    ],
  });
  const hooks = realHooks(provider);
  installTraceHooks(hooks);
  return hooks;
}
