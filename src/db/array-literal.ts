// PostgreSQL array literals for statement parameters, written without pg's two regular-expression
// replacements per element: pg's `arrayString` was most of the driver's CPU on achieve's batch, whose
// statement carries its rows as arrays (docs/performance.md "Thirteenth round"). The text is the
// same as pg writes, for arrays of strings, numbers, bigints, booleans and nulls; any other array
// (dates, buffers, nested arrays, objects) is left to pg.

const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/** `value` as pg would send it when it is an array of scalars, else `value` itself. */
export function arrayLiteral(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  let literal = '{';
  for (let i = 0; i < value.length; i++) {
    if (i > 0) literal += ',';
    const item: unknown = value[i];
    let text: string;
    switch (typeof item) {
      case 'string':
        text = item;
        break;
      case 'number':
      case 'bigint':
      case 'boolean':
        text = String(item);
        break;
      case 'undefined':
        literal += 'NULL';
        continue;
      default:
        if (item === null) {
          literal += 'NULL';
          continue;
        }
        return value;
    }
    literal += NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, '\\$&')}"` : `"${text}"`;
  }
  return `${literal}}`;
}

/** A statement's parameters with their arrays of scalars written as literals (arrayLiteral). */
export function withArrayLiterals(values: readonly unknown[] | undefined): unknown[] | undefined {
  if (values === undefined) return undefined;
  let out: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (!Array.isArray(value)) continue;
    out ??= [...values];
    out[i] = arrayLiteral(value);
  }
  return out ?? (values as unknown[]);
}
