// The one way the pages talk to the service: JSON over fetch, every error turned into an ApiError
// carrying the catalog's {code, name, message} (docs/errors.md), or a network error of its own.

export interface ErrorBody {
  code: number;
  name: string;
  message: string;
  field?: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly errorName: string;
  readonly field: string | undefined;

  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code;
    this.errorName = body.name;
    this.field = body.field;
  }
}

/** Not an answer of the service at all: offline, DNS, a proxy's HTML page. */
export const NETWORK_ERROR = { code: 0, name: 'NETWORK_ERROR' } as const;

export interface RequestOptions {
  body?: unknown;
  /** Admin secret for the console; the mission page uses its session cookie instead. */
  bearer?: string;
  signal?: AbortSignal;
}

function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as Partial<ErrorBody> | null;
  return typeof v === 'object' && v !== null && typeof v.code === 'number' && typeof v.name === 'string';
}

export async function apiRequest<T>(method: string, url: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      ...(options.signal && { signal: options.signal }),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, {
      ...NETWORK_ERROR,
      message: 'the service cannot be reached; check the connection and retry',
    });
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) {
    if (isErrorBody(parsed)) throw new ApiError(response.status, parsed);
    throw new ApiError(response.status, {
      ...NETWORK_ERROR,
      message: `the service answered ${response.status} ${response.statusText} without an error body`,
    });
  }
  return parsed as T;
}

/**
 * A failure worth trying again as it is: the service said it is starting or busy (503, whose
 * Retry-After the pages do not wait out in full), or it could not be reached at all.
 */
export function isTransient(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 503 || error.status === 0);
}

/** The waits between the tries of retryTransient, in milliseconds: about 15 s in all. */
export const TRANSIENT_RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000];

/**
 * Runs `call` again while it fails transiently (isTransient), after each of `delaysMs`; the last
 * failure, or any other, is thrown. For what a page cannot show anything without (the console's
 * first sign-in and its check of a kept secret): a service that is still starting its development
 * chain, or shedding load for a second, must not cost an operator the session.
 */
export async function retryTransient<T>(
  call: () => Promise<T>,
  delaysMs: readonly number[] = TRANSIENT_RETRY_DELAYS_MS,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const delay = delaysMs[attempt];
      if (delay === undefined || !isTransient(error) || signal?.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** A query string from the defined, non-empty values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
