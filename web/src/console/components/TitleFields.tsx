// Optional titles per language for a promotion, mission group or mission, alongside the default
// `title`. The API takes them as `titles` ({en, ko, ja, zh-TW, th}); a form sends `titles` only when
// an operator filled one in (or had some before), so forms keep working where the API has no titles.
import { TextField } from '../../shared/ui.tsx';
import { useConsoleText } from '../i18n.ts';

export const TITLE_LANGUAGES = ['en', 'ko', 'ja', 'zh-TW', 'th'] as const;
export type TitleLanguage = (typeof TITLE_LANGUAGES)[number];
export type Titles = Partial<Record<TitleLanguage, string>>;

/** The titles an answer carries, if the API gives them. */
export function titlesOf(thing: object): Titles | undefined {
  const titles = (thing as { titles?: unknown }).titles;
  return titles && typeof titles === 'object' ? (titles as Titles) : undefined;
}

/** `{titles}` for a request body: the filled-in ones; nothing when none is filled and none was before. */
export function titlesBody(form: FormData, before?: Titles): { titles?: Titles } {
  const titles: Titles = {};
  for (const language of TITLE_LANGUAGES) {
    const value = String(form.get(`titles.${language}`) ?? '').trim();
    if (value !== '') titles[language] = value;
  }
  const hadSome = before !== undefined && Object.keys(before).length > 0;
  return Object.keys(titles).length > 0 || hadSome ? { titles } : {};
}

export function TitleFields({ titles }: { titles?: Titles }) {
  const { t } = useConsoleText();
  return (
    <details className="title-fields" open={titles !== undefined && Object.keys(titles).length > 0}>
      <summary>{t('titles.summary')}</summary>
      <p className="muted">{t('titles.hint')}</p>
      {TITLE_LANGUAGES.map((language) => (
        <TextField
          key={language}
          label={t(`titles.${language}`)}
          name={`titles.${language}`}
          lang={language}
          defaultValue={titles?.[language] ?? ''}
          maxLength={200}
        />
      ))}
    </details>
  );
}
