// Every error factory gives an AppError of the catalog (its code and status), keeps the cause it is
// handed, uses every argument in its answer, and no two factories word the same situation.
import { describe, expect, it } from 'vitest';
import * as factories from './error-factories.ts';
import { AppError, ERRORS } from './errors.ts';

type Factory = (...args: unknown[]) => AppError;

const all = Object.entries(factories).filter((entry): entry is [string, Factory] => {
  return typeof entry[1] === 'function';
});

/** The names of a factory's parameters, read from its source (they survive the type stripping). */
function parameterNames(factory: Factory): string[] {
  const source = factory.toString();
  const list = source.slice(source.indexOf('(') + 1, source.indexOf(')'));
  return list
    .split(',')
    .map((part) => part.trim().split(/[\s=]/)[0] ?? '')
    .filter((name) => name.length > 0);
}

/** Calls a factory with a marked sample per argument and, when it takes one, a cause. */
function call(factory: Factory, cause: Error) {
  const names = parameterNames(factory);
  const samples = names.map((name, index) => (name === 'because' ? { cause } : `«argument ${index}»`));
  return { error: factory(...samples), names, samples };
}

describe('error factories', () => {
  it('are many and every one is found', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it.each(all)('%s gives the catalog code and status, a body, and keeps the cause', (_name, factory) => {
    const cause = new Error('the wrapped failure\nsecond line');
    const { error, names, samples } = call(factory, cause);
    expect(error).toBeInstanceOf(AppError);
    const spec = ERRORS[error.errorName];
    expect(spec).toBeDefined();
    expect(error.code).toBe(spec.code);
    expect(error.status).toBe(spec.status);
    expect(error.toBody()).toMatchObject({ code: spec.code, name: error.errorName, message: error.message });
    expect(error.message.length).toBeGreaterThan(5);
    expect(error.message).not.toMatch(/undefined|\[object Object\]/);
    if (names.includes('because')) expect(error.cause).toBe(cause);
    else expect(error.cause).toBeUndefined();
    // Every argument shows in the answer (message or details): none is silently dropped.
    const answer = JSON.stringify(error.toBody());
    for (const sample of samples) if (typeof sample === 'string') expect(answer).toContain(sample);
  });

  it('word each situation once: no two factories give the same code and wording', () => {
    const seen = new Map<string, string>();
    for (const [name, factory] of all) {
      const { error } = call(factory, new Error('cause'));
      const key = `${error.errorName} ${error.message}`;
      expect(seen.get(key), `${name} repeats ${seen.get(key)}`).toBeUndefined();
      seen.set(key, name);
    }
  });

  it('keep the first line of a wrapped error short', () => {
    const error = factories.chainRpcUnavailable('network x', {
      cause: new Error(`${'a'.repeat(500)}\nmore`),
    });
    expect(error.message).toBe(`network x: the RPC endpoint did not answer (${'a'.repeat(200)})`);
    expect(factories.idTokenRefused({ cause: 'not an Error' }).message).toBe(
      'the ID token is not valid: not an Error',
    );
  });
});
