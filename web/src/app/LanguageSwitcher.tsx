// The language switcher: the five languages in their own names; the choice is remembered.
import { useTranslation } from 'react-i18next';
import { chooseAndRemember, currentLanguage, LANGUAGE_NAMES, LANGUAGES, supportedLanguage } from './i18n.ts';

export function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  return (
    <div className="language">
      <label htmlFor="page-language">{t('page.language')}</label>{' '}
      <select
        id="page-language"
        value={currentLanguage(i18n)}
        onChange={(e) => {
          const lang = supportedLanguage(e.currentTarget.value);
          if (lang) void chooseAndRemember(i18n, lang);
        }}
      >
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
