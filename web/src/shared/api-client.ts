// A typed client over apiRequest: paths, parameters, bodies and answers come from api-schema.ts, which
// `npm run gen:api` generates from the service's /openapi.json. Failures stay ApiError (api.ts).
import { apiRequest, query } from './api.ts';
import type { paths } from './api-schema.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that answer `method`. */
export type PathsFor<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

/** The OpenAPI operation of `method` on `path`. */
export type Operation<M extends Method, P extends PathsFor<M>> = NonNullable<paths[P][M]>;

type PathParams<O> = O extends { parameters: { path: infer T } } ? T : never;
type QueryParams<O> = O extends { parameters: { query?: infer T } } ? T : never;
type JsonBody<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : O extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : never;
type JsonContent<R> = R extends { content: { 'application/json': infer T } } ? T : undefined;

/** The body of a successful answer (200, 201; undefined for 204). */
export type Answer<O> = O extends { responses: infer R }
  ? JsonContent<R[Extract<keyof R, 200 | 201 | 204>]>
  : never;

/** The answer of `method` on `path`. */
export type AnswerOf<M extends Method, P extends PathsFor<M>> = Answer<Operation<M, P>>;

/** One element of a list answer `{items: T[]}`. */
export type ItemOf<L> = L extends { items: Array<infer T> } ? T : never;

/** The JSON body `method` on `path` takes. */
export type BodyOf<M extends Method, P extends PathsFor<M>> = NonNullable<JsonBody<Operation<M, P>>>;

type Part<T, Key extends string, Required extends boolean> = [T] extends [never]
  ? unknown
  : Required extends true
    ? { [K in Key]: T }
    : { [K in Key]?: T };

/** What a call takes besides its path: path parameters (filled into `{name}`), query, body, signal. */
export type CallInit<O> = Part<PathParams<O>, 'path', true> &
  Part<NonNullable<QueryParams<O>>, 'query', false> &
  Part<NonNullable<JsonBody<O>>, 'body', undefined extends JsonBody<O> ? false : true> & {
    signal?: AbortSignal;
  };

// The init may be left out only when nothing in it is required.
type CallArgs<O> = object extends CallInit<O> ? [init?: CallInit<O>] : [init: CallInit<O>];

type Call<M extends Method> = <P extends PathsFor<M>>(
  path: P,
  ...args: CallArgs<Operation<M, P>>
) => Promise<AnswerOf<M, P>>;

export type ApiClient = { [M in Method]: Call<M> };

export interface ApiClientOptions {
  /** Admin secret for the console; the mission page uses its session cookie instead. */
  bearer?: string;
  /** Sees every failure before the caller does (the console signs out on a revoked credential). */
  onError?: (error: unknown) => void;
}

interface LooseInit {
  path?: Record<string, string | number>;
  query?: Record<string, string | number | undefined | null>;
  body?: unknown;
  signal?: AbortSignal;
}

/** Fills `{name}` placeholders from `params`, each encoded as one path segment. */
export function fillPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(String(value));
  });
}

export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const call =
    (method: Method) =>
    async (path: string, init: LooseInit = {}): Promise<unknown> => {
      const url = fillPath(path, init.path) + query(init.query ?? {});
      try {
        return await apiRequest(method.toUpperCase(), url, {
          ...(init.body !== undefined && { body: init.body }),
          ...(options.bearer !== undefined && { bearer: options.bearer }),
          ...(init.signal && { signal: init.signal }),
        });
      } catch (error) {
        options.onError?.(error);
        throw error;
      }
    };
  // The loose implementation is safe to present as the typed one: the types only narrow its inputs.
  return {
    get: call('get'),
    post: call('post'),
    put: call('put'),
    patch: call('patch'),
    delete: call('delete'),
  } as unknown as ApiClient;
}
