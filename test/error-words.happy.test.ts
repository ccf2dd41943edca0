// The pages show every error code of the catalog in words, in every language of the pages: a code
// added to src/errors.ts without words in web/src/shared/error-words/<language>.json fails here, so
// forms never fall back to a bare message, and a Korean or Thai user never reads English words.
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../src/errors.ts';
import { ApiError } from '../web/src/shared/api.ts';
import {
  describeError,
  ERROR_NAMES_IN_WORDS,
  ERROR_WORDS,
  errorWordsFor,
} from '../web/src/shared/error-words.ts';
import type { ErrorWords } from '../web/src/shared/error-words.ts';

const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('error codes in words', () => {
  it('covers every code of the catalog', () => {
    const missing = Object.keys(ERRORS).filter((name) => !ERROR_NAMES_IN_WORDS.includes(name));
    expect(missing).toEqual([]);
  });

  const english: ErrorWords = ERROR_WORDS.en;
  for (const [language, { frame, words }] of Object.entries(ERROR_WORDS) as Array<[string, ErrorWords]>) {
    it(`${language} has words for every code English has, no others, and the same frame`, () => {
      expect(Object.keys(words).sort()).toEqual([...ERROR_NAMES_IN_WORDS].sort());
      for (const [name, text] of Object.entries(words)) expect(text.trim(), name).not.toBe('');
      expect(Object.keys(frame).sort()).toEqual(Object.keys(english.frame).sort());
      expect(placeholders(frame.error)).toEqual(['code', 'name']);
      if (language !== 'en')
        expect(
          Object.keys(words).filter((name) => words[name] === english.words[name]),
          'left in English',
        ).toEqual([]);
    });
  }

  it('describes an API error by its words, its code and the service message with the field', () => {
    const error = new ApiError(409, {
      code: 2102,
      name: 'IMMUTABLE_PROMOTION_FIELD',
      message: "'timezone' cannot change",
      field: 'body.timezone',
    });
    expect(describeError(error)).toEqual({
      summary: 'This field is locked: the promotion has been active.',
      reference: 'Error 2102 IMMUTABLE_PROMOTION_FIELD',
      detail: "'timezone' cannot change (body.timezone)",
    });
    expect(describeError(error, 'ko-KR')).toEqual({
      summary: '이 항목은 잠겨 있습니다. 프로모션이 이미 활성화된 적이 있습니다.',
      reference: '오류 2102 IMMUTABLE_PROMOTION_FIELD',
      detail: "'timezone' cannot change (body.timezone)",
    });
  });

  it('picks the words by language tag, English for a language the pages do not have', () => {
    expect(errorWordsFor('ja')).toBe(ERROR_WORDS.ja);
    expect(errorWordsFor('zh-Hant-TW')).toBe(ERROR_WORDS['zh-TW']);
    expect(errorWordsFor('th-TH')).toBe(ERROR_WORDS.th);
    expect(errorWordsFor('fr')).toBe(ERROR_WORDS.en);
    expect(errorWordsFor(undefined)).toBe(ERROR_WORDS.en);
  });

  it('falls back to the message for a code it does not know, and names a page error as such', () => {
    expect(
      describeError(new ApiError(418, { code: 9999, name: 'SOMETHING_NEW', message: 'new thing' })).summary,
    ).toBe('new thing');
    expect(describeError(new Error('boom'))).toMatchObject({ reference: 'Page error', detail: 'boom' });
    expect(describeError(new Error('boom'), 'th')).toMatchObject({
      reference: 'ข้อผิดพลาดของหน้า',
      detail: 'boom',
    });
  });
});
