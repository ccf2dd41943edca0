import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import '../shared/base.css';
import './app.css';
import { createI18n, currentLanguage, detectLanguage } from './i18n.ts';
import { MissionPage } from './MissionPage.tsx';

import { EnvironmentBanner } from '../shared/environment-banner.tsx';

// The page's language (docs/i18n.md): chosen once here, switched by the page's language select.
const i18n = createI18n(detectLanguage());
const followLanguage = () => {
  document.documentElement.lang = currentLanguage(i18n);
};
followLanguage();
i18n.on('languageChanged', followLanguage);

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <I18nextProvider i18n={i18n}>
      <EnvironmentBanner audience="user" />
      <MissionPage />
    </I18nextProvider>
  </StrictMode>,
);
