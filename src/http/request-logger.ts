// Each request's logger (request.log), made when the request first logs. Fastify makes a pino child
// with the request id for every request, and pino serialises its bindings right away (about 1% of
// the busy time of achieve and link check; docs/performance.md, "Fourth round: CPU per request"),
// while at the usual level (info or warn) a successful partner call logs nothing. The child here is
// made on the first line at an enabled level, with the same bindings: its lines are the same.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogFn = (...args: unknown[]) => void;
/** Fastify's logger type as pino's is: with isLevelEnabled. */
type PinoLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

class LazyChildLogger {
  readonly #parent: PinoLogger;
  readonly #bindings: Record<string, unknown>;
  readonly #options: Record<string, unknown>;
  #child: PinoLogger | undefined;

  constructor(parent: PinoLogger, bindings: Record<string, unknown>, options: Record<string, unknown>) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The pino child, made now if it was not yet. */
  get #logger(): PinoLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options) as PinoLogger;
    return this.#child;
  }

  #log(level: Level, args: unknown[]): void {
    // Before the child exists its level is the parent's (it would inherit it when made).
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return;
    (this.#logger[level] as LogFn)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }

  bindings(): Record<string, unknown> {
    return (this.#logger as unknown as { bindings(): Record<string, unknown> }).bindings();
  }
}

/**
 * Fastify's `childLoggerFactory`: the lazy child above, unless the route sets a log level of its own
 * (then pino's child, made at once) or the logger is not pino's (logging disabled: no isLevelEnabled).
 */
export const lazyChildLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => {
  const parent = logger as PinoLogger;
  if (typeof parent.isLevelEnabled !== 'function' || (options as { level?: unknown }).level !== undefined)
    return parent.child(bindings, options);
  return new LazyChildLogger(
    parent,
    bindings as Record<string, unknown>,
    options as Record<string, unknown>,
  ) as unknown as FastifyBaseLogger;
};
