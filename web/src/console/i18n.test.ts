// The console's translations: every message in every language, plural forms per the language's own
// rules, the same {{placeholders}}; and how the language is chosen.
import { describe, expect, it } from 'vitest';
import { LANGUAGES, MESSAGES, pickLanguage, supportedLanguage } from './i18n.ts';
import type { Messages } from './i18n.ts';
import type { ChainPayout } from './pages/chain/PayoutsList.tsx';
import type { Claim, PromotionType } from './types.ts';

const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Every message as [dotted key, text]. */
function flatten(messages: Messages, prefix = ''): Array<[string, string]> {
  return Object.entries(messages).flatMap(([key, value]) =>
    typeof value === 'string'
      ? [[prefix + key, value] as [string, string]]
      : flatten(value, `${prefix}${key}.`),
  );
}
const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('console translations', () => {
  const english = new Map(flatten(MESSAGES.en).map(([key, text]) => [key.replace(PLURAL, ''), text]));

  for (const language of LANGUAGES) {
    it(`${language} has every message, no extra ones, and the same placeholders`, () => {
      const messages = flatten(MESSAGES[language]);
      const bases = new Set(messages.map(([key]) => key.replace(PLURAL, '')));
      expect(
        [...english.keys()].filter((key) => !bases.has(key)),
        'missing',
      ).toEqual([]);
      expect(
        [...bases].filter((key) => !english.has(key)),
        'not in English',
      ).toEqual([]);
      for (const [key, text] of messages) {
        expect(text.trim(), key).not.toBe('');
        expect(placeholders(text), key).toEqual(placeholders(english.get(key.replace(PLURAL, '')) ?? ''));
      }
    });

    it(`${language} has each plural form its language uses`, () => {
      const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      const keys = new Set(flatten(MESSAGES[language]).map(([key]) => key));
      const plurals = new Set(
        [...keys].filter((key) => PLURAL.test(key)).map((key) => key.replace(PLURAL, '')),
      );
      for (const base of plurals)
        for (const category of categories)
          expect(keys.has(`${base}_${category}`), `${base}_${category}`).toBe(true);
    });
  }

  it('a missing message fails the check (the check itself works)', () => {
    const broken: Messages = { ...MESSAGES.ko, nav: { dashboard: '대시보드' } };
    const bases = new Set(flatten(broken).map(([key]) => key.replace(PLURAL, '')));
    expect([...english.keys()].filter((key) => !bases.has(key))).toContain('nav.claims');
  });
});

// Every value of the API's enums the console shows as words (issue #31 item 13: "draw" was shown
// untranslated in Korean). A Record over each enum type: a value the API adds fails the typecheck
// until it is listed here, and then this test until every language has words for it.
const SHOWN_ENUMS: Array<[string, Record<string, true>]> = [
  [
    'claims.sources',
    { MISSION: true, GROUP: true, DRAW: true, STREAK: true } satisfies Record<Claim['source'], true>,
  ],
  [
    'claims.statuses',
    { RESERVED: true, REQUESTED: true, SUCCEEDED: true, FAILED: true, REJECTED: true } satisfies Record<
      Claim['status'],
      true
    >,
  ],
  [
    'payouts.statuses',
    { SIGNED: true, BROADCAST: true, CONFIRMED: true, REVERTED: true, FAILED: true } satisfies Record<
      ChainPayout['status'],
      true
    >,
  ],
];
const PROMOTION_TYPE_KEYS = {
  COMPOSITE: 'promotionsPage.composite',
  DAILY_CHECK: 'promotionsPage.dailyCheck',
} satisfies Record<PromotionType, string>;

describe('enums in words', () => {
  const lookup = (language: (typeof LANGUAGES)[number], key: string) =>
    new Map(flatten(MESSAGES[language])).get(key);
  for (const language of LANGUAGES) {
    it(`${language} has words for every claim source, claim status, payout status and promotion type`, () => {
      const keys = [
        ...SHOWN_ENUMS.flatMap(([prefix, values]) => Object.keys(values).map((v) => `${prefix}.${v}`)),
        ...Object.values(PROMOTION_TYPE_KEYS),
      ];
      for (const key of keys) {
        const words = lookup(language, key);
        expect(words, `${language} ${key}`).toBeTruthy();
        // Not the API's own token (DRAW, COMPOSITE) shown as it is.
        expect(words, `${language} ${key}`).not.toMatch(/^[A-Z_]+$/);
        if (language !== 'en') expect(words, `${language} ${key}`).not.toBe(lookup('en', key));
      }
    });
  }
});

describe('choosing the language', () => {
  it('takes the stored choice, else the first browser language the console has, else English', () => {
    expect(pickLanguage('ko', ['en-US'])).toBe('ko');
    expect(pickLanguage(null, ['fr-FR', 'ko-KR', 'en'])).toBe('ko');
    expect(pickLanguage(null, ['ja-JP', 'en'])).toBe('ja');
    expect(pickLanguage('xx', ['fr'])).toBe('en');
    expect(pickLanguage(undefined, [])).toBe('en');
    expect(supportedLanguage('KO_kr')).toBe('ko');
    expect(supportedLanguage('')).toBeUndefined();
  });
});
