// Per-language titles of promotions, mission groups and missions (docs/i18n.md "Titles"): the
// languages the mission page speaks, the request body schema for operators, and the choice of the
// title an end user reads (the request's language, else the default `title`).
import { Type } from 'typebox';
import { component } from '../http/schemas.ts';
import type { Titles } from '../db/schema.ts';

export const LANGUAGES = ['en', 'ko', 'ja', 'zh-TW', 'th'] as const;
export type Language = (typeof LANGUAGES)[number];
export type { Titles };

/** The `titles` object of create/update bodies and operator answers; values have `title`'s limits. */
export const TitlesSchema = Type.Object(
  Object.fromEntries(
    LANGUAGES.map((lang) => [lang, Type.Optional(Type.String({ minLength: 1, maxLength: 200 }))]),
  ) as Record<Language, ReturnType<typeof Type.Optional<ReturnType<typeof Type.String>>>>,
  {
    ...component('Titles'),
    additionalProperties: false,
    description: "Titles per language ('en', 'ko', 'ja', 'zh-TW', 'th'); `title` is the fallback",
    examples: [{ ko: '매일 출석하기', ja: '毎日ログイン' }],
  },
);

/** The `lang` query parameter of the end-user API: a language tag, negotiated like Accept-Language. */
export const LangQuery = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 35,
    pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$',
    description:
      "The reader's language (en, ko, ja, zh-TW, th); titles come in it when the operator gave one. Else Accept-Language, else the default title",
  }),
);

/** Maps one language tag to a supported language: ja-JP → ja, zh-Hant / zh-HK / zh-TW → zh-TW. */
export function supportedLanguage(tag: string): Language | undefined {
  const lower = tag.trim().toLowerCase();
  if (lower === '') return undefined;
  const [primary, ...rest] = lower.split('-');
  if (primary === 'zh') {
    // Only Traditional Chinese is offered: Simplified (zh, zh-CN, zh-Hans, zh-SG) falls back.
    return rest.some((s) => s === 'hant' || s === 'tw' || s === 'hk' || s === 'mo') ? 'zh-TW' : undefined;
  }
  return LANGUAGES.find((l) => l === primary);
}

/** The first supported language of an Accept-Language header, by quality then order. */
export function fromAcceptLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  const ranges = header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { tag: tag.trim(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const r of ranges) {
    const lang = supportedLanguage(r.tag);
    if (lang) return lang;
  }
  return undefined;
}

/** The reader's language: `lang` when it names a supported one, else Accept-Language. */
export function readerLanguage(lang: string | undefined, acceptLanguage: string | undefined) {
  return (lang === undefined ? undefined : supportedLanguage(lang)) ?? fromAcceptLanguage(acceptLanguage);
}

/** The title in `lang` when the operator gave one, else the default title. */
export function titleIn(
  title: string,
  titles: Titles | null | undefined,
  lang: Language | undefined,
): string {
  return (lang && titles?.[lang]) || title;
}

/** Only the known languages with a non-empty title, as stored (jsonb text). */
export function titlesColumn(titles: Titles | undefined): string {
  const clean: Titles = {};
  for (const lang of LANGUAGES) {
    const value = titles?.[lang];
    if (value) clean[lang] = value;
  }
  return JSON.stringify(clean);
}
