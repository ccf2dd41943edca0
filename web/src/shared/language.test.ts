// The language rule shared by the console, the mission page and the error words.
import { describe, expect, it } from 'vitest';
import { firstOfferedLanguage, matchLanguage } from './language.ts';

const PAGE = ['en', 'ko', 'ja', 'zh-TW', 'th'] as const;
const CONSOLE = ['en', 'ko', 'ja'] as const;

describe('matchLanguage', () => {
  it('matches on the primary subtag, whatever the case or separator', () => {
    expect(matchLanguage('ko-KR', PAGE)).toBe('ko');
    expect(matchLanguage('KO_kr', CONSOLE)).toBe('ko');
    expect(matchLanguage(' th-TH ', PAGE)).toBe('th');
    expect(matchLanguage('ja', CONSOLE)).toBe('ja');
  });

  it('reads Traditional Chinese as zh-TW, and Simplified or bare zh as none of ours', () => {
    for (const tag of ['zh-TW', 'zh_TW', 'zh-Hant', 'zh-Hant-HK', 'zh-HK', 'zh-MO'])
      expect(matchLanguage(tag, PAGE), tag).toBe('zh-TW');
    for (const tag of ['zh', 'zh-CN', 'zh-Hans', 'zh-Hans-CN'])
      expect(matchLanguage(tag, PAGE), tag).toBeUndefined();
  });

  it('answers only languages the surface offers', () => {
    expect(matchLanguage('th', CONSOLE)).toBeUndefined();
    expect(matchLanguage('zh-TW', CONSOLE)).toBeUndefined();
    expect(matchLanguage('fr-FR', PAGE)).toBeUndefined();
    expect(matchLanguage('', PAGE)).toBeUndefined();
    expect(matchLanguage(null, PAGE)).toBeUndefined();
    expect(matchLanguage(undefined, PAGE)).toBeUndefined();
  });
});

describe('firstOfferedLanguage', () => {
  it('takes the first tag that matches, skipping the rest and the ones that do not', () => {
    expect(firstOfferedLanguage(['xx', null, 'fr', 'de-DE', 'ja-JP', 'ko'], PAGE, 'en')).toBe('ja');
    expect(firstOfferedLanguage(['th', 'ko'], CONSOLE, 'en')).toBe('ko');
  });

  it('falls back when nothing matches', () => {
    expect(firstOfferedLanguage([], PAGE, 'en')).toBe('en');
    expect(firstOfferedLanguage(['zh-CN', 'fr'], PAGE, 'en')).toBe('en');
  });
});
