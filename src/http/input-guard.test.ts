import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findInJson, unacceptableText } from './input-guard.ts';

// The checks as they were before "Fourth round: CPU per request" (docs/performance.md): the faster
// ones must find exactly what these found, with the same path and reason.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function referenceText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}
function referenceFind(root: unknown): { path: string; why: string } | undefined {
  interface Node {
    value: unknown;
    key: string;
    parent: Node | undefined;
  }
  const pathOf = (node: Node | undefined): string => {
    const keys: string[] = [];
    for (let at = node; at !== undefined; at = at.parent) keys.push(at.key);
    return keys.reverse().join('.');
  };
  const stack: Node[] = [{ value: root, key: 'body', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const { value } = node;
    if (typeof value === 'string') {
      const why = referenceText(value);
      if (why !== undefined) return { path: pathOf(node), why };
    } else if (typeof value === 'object' && value !== null) {
      const entries = Array.isArray(value)
        ? value.map((item, i) => [String(i), item] as const)
        : Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as readonly [string, unknown];
        const keyWhy = Array.isArray(value) ? undefined : referenceText(key);
        if (keyWhy !== undefined) return { path: pathOf(node), why: `has a field name that ${keyWhy}` };
        stack.push({ value: item, key, parent: node });
      }
    }
  }
  return undefined;
}

// Text that is often bad: NULs and both halves of surrogate pairs, alone and paired.
const text = fc
  .array(
    fc.oneof(fc.constantFrom('\u0000', '\uD800', '\uDC00', '\uD83D\uDE00', 'a', 'é', '.', ''), fc.string()),
    {
      maxLength: 4,
    },
  )
  .map((parts) => parts.join(''));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const flatObject = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), {
  maxKeys: 6,
});

describe('the input guard checks', () => {
  it('refuses the same text as the regular expression did', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(unacceptableText(value)).toEqual(referenceText(value));
      }),
      {
        numRuns: 2000,
      },
    );
  });

  it('names the same field for a flat body as the walk did', () => {
    fc.assert(
      fc.property(flatObject, (body) => {
        expect(findInJson(body)).toEqual(referenceFind(body));
      }),
      {
        numRuns: 2000,
      },
    );
  });

  it('names the same field for any JSON value as the walk did', () => {
    fc.assert(
      fc.property(json, (body) => {
        expect(findInJson(body)).toEqual(referenceFind(body));
      }),
      {
        numRuns: 2000,
      },
    );
  });

  it('names the last bad field name of an object, the first bad value in document order', () => {
    expect(findInJson({ a: 'x\u0000', b: '\uD800', c: 1 })).toEqual({
      path: 'body.a',
      why: 'contains a NUL character',
    });
    expect(findInJson({ 'a\u0000': 1, 'b\uD800': 'x\u0000' })).toEqual({
      path: 'body',
      why: 'has a field name that contains an unpaired UTF-16 surrogate',
    });
    expect(findInJson({ a: 'ok', b: { c: ['x', '\uDC00'] } })).toEqual({
      path: 'body.b.c.1',
      why: 'contains an unpaired UTF-16 surrogate',
    });
  });
});
