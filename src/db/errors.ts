// Maps PostgreSQL errors (from pg or PGlite, which share SQLSTATE codes) to the few kinds the
// services need to name; anything else is left to the error handler as an internal error.

export type DbErrorKind = 'unique_violation' | 'foreign_key_violation' | 'check_violation' | 'serialization_failure' | 'timeout';

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
};

export function classifyDbError(error: unknown): DbErrorInfo | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  const kind = typeof code === 'string' ? KINDS[code] : undefined;
  if (kind === undefined) return undefined;
  return { kind, constraint: typeof constraint === 'string' ? constraint : undefined };
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const info = classifyDbError(error);
  return info?.kind === 'unique_violation' && (constraint === undefined || info.constraint === constraint);
}
