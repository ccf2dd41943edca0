// Which database failures are retryable outages (503 with Retry-After) rather than bugs (500):
// classifyDbError names connection loss, server shutdown and overload 'unavailable', and lock and
// statement timeouts 'timeout'. The real failures are produced in test/database.faults.test.ts;
// these are the shapes a fault test cannot easily provoke (failover, too many connections).
import { describe, expect, it } from 'vitest';
import { classifyDbError } from '../src/db/errors.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('classifyDbError: retryable outages', () => {
  it.each([
    ['08006', 'connection failure'],
    ['08001', 'unable to connect'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['53300', 'sorry, too many clients already'],
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['ECONNRESET', 'read ECONNRESET'],
  ])('%s (%s) is unavailable', (code, message) => {
    expect(classifyDbError(withCode(code, message))?.kind).toBe('unavailable');
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
  ])('pg\'s "%s" is unavailable', (message) => {
    expect(classifyDbError(new Error(message))?.kind).toBe('unavailable');
  });

  it('a failed connect to several addresses (AggregateError) and a wrapped cause are unavailable', () => {
    expect(
      classifyDbError(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], ''))?.kind,
    ).toBe('unavailable');
    expect(classifyDbError(new Error('query failed', { cause: withCode('57P01') }))?.kind).toBe(
      'unavailable',
    );
  });

  it('lock_timeout and statement_timeout are timeouts', () => {
    expect(classifyDbError(withCode('55P03'))?.kind).toBe('timeout');
    expect(classifyDbError(withCode('57014'))?.kind).toBe('timeout');
  });

  it('bugs and bad input stay what they are', () => {
    expect(classifyDbError(new Error('Cannot read properties of undefined'))).toBeUndefined();
    expect(classifyDbError(withCode('42P01', 'relation "x" does not exist'))).toBeUndefined();
    expect(classifyDbError(withCode('23505'))?.kind).toBe('unique_violation');
  });
});
