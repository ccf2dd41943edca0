// Maps PostgreSQL errors (from pg or PGlite, which share SQLSTATE codes) to the few kinds the
// services need to name; anything else is left to the error handler as an internal error.

export type DbErrorKind =
  | 'unique_violation'
  | 'foreign_key_violation'
  | 'check_violation'
  | 'serialization_failure'
  | 'timeout'
  | 'unavailable';

export interface DbErrorInfo {
  kind: DbErrorKind;
  constraint: string | undefined;
}

const KINDS: Record<string, DbErrorKind> = {
  '23505': 'unique_violation',
  '23503': 'foreign_key_violation',
  '23514': 'check_violation',
  '40001': 'serialization_failure',
  '40P01': 'serialization_failure',
  '57014': 'timeout',
  '55P03': 'timeout',
  // The server went away or refuses for now (shutdown, crash recovery, too many connections).
  '57P01': 'unavailable',
  '57P02': 'unavailable',
  '57P03': 'unavailable',
  '53300': 'unavailable',
  // A write reached a standby: after a failover or switchover, a connection opened to the old
  // primary before the router (HAProxy) moved. The next connection goes to the new primary.
  '25006': 'unavailable',
};

// The connection is gone or could not be had: the request did not reach the data (or, if it did, its
// transaction was rolled back), so the client may retry it as it is.
const UNREACHABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const UNREACHABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

function isUnreachable(error: object, depth = 0): boolean {
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (
    typeof code === 'string' &&
    (code.startsWith('08') || UNREACHABLE_NODE_CODES.has(code) || KINDS[code] === 'unavailable')
  ) {
    return true;
  }
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message)) return true;
  // Node reports a failed connect to several addresses as an AggregateError; wrappers keep a cause.
  if (depth > 3) return false;
  const inner = [cause, ...(Array.isArray(errors) ? errors : [])];
  return inner.some((e) => typeof e === 'object' && e !== null && isUnreachable(e, depth + 1));
}

export function classifyDbError(error: unknown): DbErrorInfo | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  const kind =
    (typeof code === 'string' ? KINDS[code] : undefined) ??
    (isUnreachable(error) ? 'unavailable' : undefined);
  if (kind === undefined) return undefined;
  return { kind, constraint: typeof constraint === 'string' ? constraint : undefined };
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const info = classifyDbError(error);
  return info?.kind === 'unique_violation' && (constraint === undefined || info.constraint === constraint);
}

/**
 * The database refused something a request asked for, and no service named the refusal. Class 22
 * (data exception: bad text encoding or a NUL, a number out of range, a string too long, a malformed
 * date or number ...), class 54 (a value too large for an index or for PostgreSQL), a NOT NULL or
 * CHECK violation are an invalid value; a unique, foreign-key or exclusion violation is a conflict
 * with what is stored. Validation and the services should catch these first; this is the net under
 * them, so bad input is a 4xx and never a 500.
 */
export function classifyDbInputError(
  error: unknown,
): { sqlState: string; kind: 'invalid_value' | 'conflict' } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as { code?: unknown };
  if (typeof code !== 'string') return undefined;
  if (/^(22|54)[0-9A-Z]{3}$/.test(code) || code === '23502' || code === '23514') {
    return { sqlState: code, kind: 'invalid_value' };
  }
  if (code === '23505' || code === '23503' || code === '23P01') return { sqlState: code, kind: 'conflict' };
  return undefined;
}
