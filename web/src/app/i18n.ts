// The mission page's languages (docs/i18n.md): i18next with ICU messages (i18next-icu and
// intl-messageformat), the five translations bundled, and the choice of the language.
import i18next from 'i18next';
import type { i18n as I18n } from 'i18next';
import ICU from 'i18next-icu';
import { initReactI18next } from 'react-i18next';
import en from './locales/en.json';
import ja from './locales/ja.json';
import ko from './locales/ko.json';
import th from './locales/th.json';
import zhTW from './locales/zh-TW.json';
import { firstOfferedLanguage, matchLanguage } from '../shared/language.ts';

export const LANGUAGES = ['en', 'ko', 'ja', 'zh-TW', 'th'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

/** Each language in its own words, for the switcher. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  ko: '한국어',
  ja: '日本語',
  'zh-TW': '繁體中文',
  th: 'ไทย',
};

export const MESSAGES: Record<Language, typeof en> = { en, ko, ja, 'zh-TW': zhTW, th };

/** Where the user's own choice is remembered. */
export const STORAGE_KEY = 'missions.language';

/** A language tag as a supported language: ja-JP → ja; zh-Hant, zh-TW, zh-HK → zh-TW; else undefined (src/shared/language.ts). */
export function supportedLanguage(tag: string | null | undefined): Language | undefined {
  return matchLanguage(tag, LANGUAGES);
}

export interface LanguageHints {
  /** The user's own choice with the switcher (localStorage). */
  stored?: string | null | undefined;
  /** ?lang= of the page's address. */
  query?: string | null | undefined;
  /** LINE's language when the page runs in LIFF (liff.getLanguage()). */
  liff?: string | null | undefined;
  /** navigator.languages, most preferred first. */
  browser?: readonly string[] | undefined;
}

/** The first supported language of: the user's choice, ?lang=, LIFF, the browser; else English. */
export function languageFromHints(hints: LanguageHints): Language {
  return firstOfferedLanguage(
    [hints.stored, hints.query, hints.liff, ...(hints.browser ?? [])],
    LANGUAGES,
    DEFAULT_LANGUAGE,
  );
}

function readStored(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage refused (private mode, a sandboxed webview)
  }
}

/** LIFF's SDK, when the page runs inside LINE with it loaded. */
function liffLanguage(): string | undefined {
  const liff = (window as unknown as { liff?: { getLanguage?: () => string } }).liff;
  try {
    return liff?.getLanguage?.();
  } catch {
    return undefined; // liff.init not done yet
  }
}

export function detectLanguage(): Language {
  return languageFromHints({
    stored: readStored(),
    query: new URLSearchParams(window.location.search).get('lang'),
    liff: liffLanguage(),
    browser: navigator.languages?.length ? navigator.languages : [navigator.language],
  });
}

/** Remembers the user's choice and switches the page to it. */
export async function chooseAndRemember(i18n: I18n, lang: Language): Promise<void> {
  try {
    window.localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Not remembered; the page still switches.
  }
  await i18n.changeLanguage(lang);
}

/** An i18next instance of the page's own (the console has another). */
export function createI18n(lang: Language): I18n {
  const instance = i18next.createInstance();
  void instance
    .use(ICU)
    .use(initReactI18next)
    .init({
      lng: lang,
      fallbackLng: DEFAULT_LANGUAGE,
      supportedLngs: [...LANGUAGES],
      // 'zh-TW' is a language of its own here, not 'zh' with a region.
      load: 'currentOnly',
      resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: MESSAGES[l] }])),
      initAsync: false,
      interpolation: { escapeValue: false },
      returnNull: false,
    });
  return instance;
}

/** The current language of an instance, as one of ours. */
export function currentLanguage(i18n: I18n): Language {
  return supportedLanguage(i18n.language) ?? DEFAULT_LANGUAGE;
}
