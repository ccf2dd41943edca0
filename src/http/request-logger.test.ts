import { Writable } from 'node:stream';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLoggerFactory } from './request-logger.ts';

/** A pino logger at `level` writing JSON lines (without the time) into `lines`. */
function logger(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const { time: _time, ...rest } = JSON.parse(line) as Record<string, unknown>;
        lines.push(rest);
      }
      done();
    },
  });
  return { log: pino({ level }, stream) as unknown as FastifyBaseLogger, lines };
}

const lazyChild = (parent: FastifyBaseLogger, options: object = {}) =>
  lazyChildLoggerFactory.call(undefined as never, parent, { reqId: 'req-1' }, options, undefined as never);

/** Lets pino's synchronous stream writes land. */
const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('the request logger, made on its first line', () => {
  it('makes no pino child for a request that logs nothing at an enabled level', () => {
    const { log } = logger('warn');
    const child = vi.spyOn(log, 'child');
    const requestLog = lazyChild(log);
    requestLog.info({ req: 'x' }, 'incoming request');
    requestLog.debug('details');
    expect(child).not.toHaveBeenCalled();
  });

  it('writes the same lines, with the request id, as a child made at once', async () => {
    const eager = logger('info');
    const lazy = logger('info');
    const boom = new Error('boom');
    const calls = (l: FastifyBaseLogger) => {
      l.debug('not written');
      l.info({ code: 3006 }, 'refused');
      l.warn({ err: boom }, 'failed');
      l.error('plain');
      l.child({ sub: 1 }).info('from a child');
    };
    calls(eager.log.child({ reqId: 'req-1' }));
    calls(lazyChild(lazy.log));
    await flushed();
    expect(lazy.lines).toEqual(eager.lines);
    expect(lazy.lines.map((line) => line.reqId)).toEqual(['req-1', 'req-1', 'req-1', 'req-1']);
  });

  it("answers the parent's level until made, and its own after", () => {
    const { log } = logger('warn');
    const requestLog = lazyChild(log) as FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
    expect(requestLog.level).toBe('warn');
    expect(requestLog.isLevelEnabled('info')).toBe(false);
    requestLog.level = 'debug';
    expect(requestLog.isLevelEnabled('debug')).toBe(true);
    expect(log.level).toBe('warn');
  });

  it("is pino's child at once for a route with a log level of its own", () => {
    const { log } = logger('warn');
    const child = vi.spyOn(log, 'child');
    lazyChild(log, { level: 'debug' });
    expect(child).toHaveBeenCalledTimes(1);
  });
});
