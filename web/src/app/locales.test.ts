// Every language of the mission page has every message of English, with the same ICU arguments,
// and each message parses and formats (docs/i18n.md "Adding a language").
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, MESSAGES } from './i18n.ts';

type Tree = { [key: string]: string | Tree };

/** "a.b.c" → message, for every leaf of a locale file. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

interface AstNode {
  type: number;
  value?: unknown;
  options?: Record<string, { value: AstNode[] }>;
  children?: AstNode[];
}

/** The argument names of an ICU message ("{count, plural, ...}" → count), and its plural arguments. */
function argumentsOf(message: string, lang: string): { names: string[]; plurals: string[] } {
  const names = new Set<string>();
  const plurals = new Set<string>();
  const walk = (nodes: AstNode[]) => {
    for (const node of nodes) {
      // 1 argument, 2 number, 3 date, 4 time, 5 select, 6 plural, 8 tag (intl-messageformat's AST).
      if ([1, 2, 3, 4, 5, 6].includes(node.type) && typeof node.value === 'string') names.add(node.value);
      if (node.type === 6 && typeof node.value === 'string') plurals.add(node.value);
      for (const option of Object.values(node.options ?? {})) walk(option.value);
      if (node.children) walk(node.children);
    }
  };
  walk(new IntlMessageFormat(message, lang).getAst() as unknown as AstNode[]);
  return { names: [...names].sort(), plurals: [...plurals].sort() };
}

const english = flatten(MESSAGES.en as unknown as Tree);

describe('the mission page translations', () => {
  it('English has messages', () => {
    expect(english.size).toBeGreaterThan(50);
  });

  describe.each(LANGUAGES.filter((l) => l !== 'en'))('%s', (lang) => {
    const messages = flatten(MESSAGES[lang] as unknown as Tree);

    it('has every key of English and no other', () => {
      expect([...messages.keys()].filter((k) => !english.has(k))).toEqual([]);
      expect([...english.keys()].filter((k) => !messages.has(k))).toEqual([]);
    });

    it('uses the same ICU arguments as English in every message', () => {
      const differing: string[] = [];
      for (const [key, source] of english) {
        const translated = messages.get(key);
        if (translated === undefined) continue;
        if (translated.trim() === '') differing.push(`${key}: empty`);
        const a = argumentsOf(source, 'en');
        const b = argumentsOf(translated, lang);
        if (JSON.stringify(a) !== JSON.stringify(b))
          differing.push(`${key}: en ${JSON.stringify(a)} vs ${lang} ${JSON.stringify(b)}`);
      }
      expect(differing).toEqual([]);
    });

    it('formats every message with sample values', () => {
      for (const [key, message] of messages) {
        const values = Object.fromEntries(argumentsOf(message, lang).names.map((n) => [n, 2]));
        const text = new IntlMessageFormat(message, lang).format(values);
        expect(typeof text === 'string' && text.length > 0, key).toBe(true);
      }
    });
  });

  it('the check of arguments notices a renamed or dropped placeholder', () => {
    expect(argumentsOf('{done}/{total} done', 'en')).not.toEqual(argumentsOf('{done}/{all} done', 'en'));
    expect(argumentsOf('{count, plural, other {# days}}', 'en').plurals).toEqual(['count']);
    expect(argumentsOf('Best days', 'en').names).toEqual([]);
    expect(() => argumentsOf('{count, plural, one {# day}', 'en')).toThrow();
  });
});
