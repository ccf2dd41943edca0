// Error codes in words: what an operator or user should understand and do, by the catalog's name
// (src/errors.ts, docs/errors.md), in each language of the pages (error-words/<language>.json; the
// mission page has five, the console three). The service's own message follows, for the specifics.
import { ApiError } from './api.ts';
import en from './error-words/en.json' with { type: 'json' };
import ja from './error-words/ja.json' with { type: 'json' };
import ko from './error-words/ko.json' with { type: 'json' };
import th from './error-words/th.json' with { type: 'json' };
import zhTW from './error-words/zh-TW.json' with { type: 'json' };
import { firstOfferedLanguage } from './language.ts';

export interface ErrorWords {
  /** The frame around a code: "Error {{code}} {{name}}", "No answer", and a page's own failure. */
  frame: { noAnswer: string; error: string; pageError: string; pageBroken: string };
  /** Catalog name -> what it means and what to do. */
  words: Record<string, string>;
}

export const ERROR_WORDS = { en, ko, ja, 'zh-TW': zhTW, th } satisfies Record<string, ErrorWords>;
const WORDS_LANGUAGES = ['en', 'ko', 'ja', 'zh-TW', 'th'] as const satisfies ReadonlyArray<
  keyof typeof ERROR_WORDS
>;

/** The words of a language tag (ko-KR -> ko, zh-Hant-TW / zh-TW -> zh-TW; language.ts), else English. */
export function errorWordsFor(language: string | undefined): ErrorWords {
  return ERROR_WORDS[firstOfferedLanguage([language], WORDS_LANGUAGES, 'en')];
}

/** The error names that have words (a test checks the whole catalog is covered). */
export const ERROR_NAMES_IN_WORDS: readonly string[] = Object.keys(en.words);

export interface ErrorDescription {
  /** The error in words; unknown codes fall back to the service's message. */
  summary: string;
  /** e.g. "Error 2102 IMMUTABLE_PROMOTION_FIELD" */
  reference: string;
  /** The service's own message, with the specifics. */
  detail: string;
}

export function describeError(error: unknown, language?: string): ErrorDescription {
  const { frame, words } = errorWordsFor(language);
  if (error instanceof ApiError) {
    const field = error.field ? ` (${error.field})` : '';
    return {
      summary: words[error.errorName] ?? error.message,
      reference:
        error.code === 0
          ? frame.noAnswer
          : frame.error.replace('{{code}}', String(error.code)).replace('{{name}}', error.errorName),
      detail: `${error.message}${field}`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { summary: frame.pageBroken, reference: frame.pageError, detail: message };
}
