// The choice of the page's language and the locale formatting of amounts and dates.
import { describe, expect, it } from 'vitest';
import { languageFromHints, createI18n, supportedLanguage } from './i18n.ts';
import { formatAmount, formatDay, formatMonth } from './locale-format.ts';

describe('languageFromHints', () => {
  it('takes the user choice, then ?lang=, then LIFF, then the browser, else English', () => {
    const all = { stored: 'th', query: 'ja', liff: 'ko-KR', browser: ['zh-TW', 'en'] };
    expect(languageFromHints(all)).toBe('th');
    expect(languageFromHints({ ...all, stored: null })).toBe('ja');
    expect(languageFromHints({ ...all, stored: null, query: null })).toBe('ko');
    expect(languageFromHints({ ...all, stored: null, query: null, liff: undefined })).toBe('zh-TW');
    expect(languageFromHints({ browser: ['fr-FR', 'de'] })).toBe('en');
    expect(languageFromHints({})).toBe('en');
  });

  it('skips what it does not offer and maps regional tags', () => {
    expect(languageFromHints({ stored: 'xx', query: 'fr', browser: ['de-DE', 'ja-JP'] })).toBe('ja');
    expect(supportedLanguage('zh-Hant-HK')).toBe('zh-TW');
    expect(supportedLanguage('zh_TW')).toBe('zh-TW');
    expect(supportedLanguage('zh-CN')).toBeUndefined();
    expect(supportedLanguage('th-TH')).toBe('th');
    expect(supportedLanguage('')).toBeUndefined();
  });
});

describe('ICU messages through i18next', () => {
  it('formats plurals per language', () => {
    const en = createI18n('en');
    expect(en.t('streak.best', { count: 1 })).toBe('Best: 1 day');
    expect(en.t('streak.best', { count: 4 })).toBe('Best: 4 days');
    const ja = createI18n('ja');
    expect(ja.t('streak.current', { count: 3 })).toBe('3日連続チェックイン');
    expect(ja.t('missions.doneCount', { done: 1, total: 2 })).toBe('1/2 達成');
    expect(createI18n('ko').t('page.title')).toBe('내 미션');
  });
});

describe('formatAmount', () => {
  it.each([
    ['1234.5', 'en', 2, '1,234.50'],
    ['1234.5', 'ja', 2, '1,234.50'],
    ['0', 'en', 0, '0'],
    ['1.2345', 'en', 2, '1.2345'],
    [
      '123456789012345678901234567890.000000000000000001',
      'en',
      18,
      '123,456,789,012,345,678,901,234,567,890.000000000000000001',
    ],
    ['9007199254740993', 'ko', 0, '9,007,199,254,740,993'],
    ['not a number', 'en', 2, 'not a number'],
  ])('%s in %s with %i decimals is %s (exact, no float)', (amount, lang, decimals, shown) => {
    expect(formatAmount(amount, lang, decimals)).toBe(shown);
  });

  it('writes dates and months in the language', () => {
    expect(formatDay('2026-11-20', 'en')).toBe('Nov 20, 2026');
    expect(formatDay('2026-11-20', 'ja')).toBe('2026/11/20');
    expect(formatMonth('2026-11', 'ko')).toBe('2026년 11월');
    expect(formatDay('ONCE', 'en')).toBe('ONCE');
  });
});
