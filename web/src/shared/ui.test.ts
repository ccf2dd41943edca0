// The console's shared pieces speak the operator's language: the loader's frame ("Loading …") comes
// from the console's catalog, like the label it frames, not from English in the code.
import i18next from 'i18next';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, MESSAGES } from '../console/i18n.ts';
import type { Language } from '../console/i18n.ts';
import { LoadState } from './ui.tsx';
import type { Loaded } from './ui.tsx';

function loaderIn(language: Language, label: string): string {
  const i18n = i18next.createInstance();
  void i18n.init({
    resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: MESSAGES[l] }])),
    lng: language,
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  const loader = createElement(LoadState<string>, {
    state: { loading: true, data: undefined, error: undefined, reload: () => {} } satisfies Loaded<string>,
    label,
    children: (data: string) => data,
  });
  return renderToStaticMarkup(createElement(I18nextProvider, { i18n }, loader));
}

describe('LoadState', () => {
  it.each([
    ['en', 'the partner', 'Loading the partner…'],
    ['ko', '파트너', '파트너 불러오는 중…'],
    ['ja', 'パートナー', 'パートナーを読み込み中…'],
  ] as const)('says it is loading in the console language (%s)', (language, label, expected) => {
    const html = loaderIn(language, label);
    expect(html).toContain(expected);
    if (language !== 'en') expect(html).not.toContain('Loading');
  });
});
