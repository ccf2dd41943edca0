// The console's languages (docs/web.md): its own i18next instance with English, Korean and Japanese
// bundled.
// The language is the operator's choice from the switcher (kept in localStorage), else the first of
// the browser's languages the console has, else English. Dates and numbers go through Intl for it.
import i18next from 'i18next';
import { useTranslation } from 'react-i18next';
import en from './locales/en.json';
import ja from './locales/ja.json';
import ko from './locales/ko.json';
import { firstOfferedLanguage, matchLanguage } from '../shared/language.ts';

export const LANGUAGES = ['en', 'ko', 'ja'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language in its own words, for the switcher. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', ko: '한국어', ja: '日本語' };

/** Nested messages; plural forms are keys with i18next's suffixes (_one, _other) per language. */
export interface Messages {
  [key: string]: string | Messages;
}

export const MESSAGES: Record<Language, Messages> = { en, ko, ja };

export const STORAGE_KEY = 'mrs.console.language';

/** A language tag as one of the console's languages (ko-KR → ko), or undefined (src/shared/language.ts). */
export function supportedLanguage(tag: string | null | undefined): Language | undefined {
  return matchLanguage(tag, LANGUAGES);
}

/** The stored choice, else the first supported browser language, else English. */
export function pickLanguage(stored: string | null | undefined, browser: readonly string[]): Language {
  return firstOfferedLanguage([stored, ...browser], LANGUAGES, 'en');
}

function storedChoice(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export const consoleI18n = i18next.createInstance();
void consoleI18n.init({
  resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: MESSAGES[l] }])),
  lng: pickLanguage(storedChoice(), typeof navigator === 'undefined' ? [] : navigator.languages),
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
});
consoleI18n.on('languageChanged', (language) => {
  document.documentElement.lang = language;
});
if (typeof document !== 'undefined') document.documentElement.lang = consoleI18n.language;

/** The operator's choice: shown at once and remembered in this browser. */
export function switchConsoleLanguage(language: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Private mode: the choice holds for this page only.
  }
  void consoleI18n.changeLanguage(language);
}

/** Translations and Intl formatting in the console's current language. */
export function useConsoleText() {
  const { t, i18n } = useTranslation();
  const locale = i18n.language;
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  return {
    t,
    locale,
    /** An instant in the operator's time zone, in their language; "—" when there is none. */
    formatDateTime: (instant: string | null | undefined) =>
      instant ? dateTime.format(new Date(instant)) : '—',
    formatNumber: (value: number) => new Intl.NumberFormat(locale).format(value),
  };
}
