import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../shared/base.css';
import './console.css';
import { I18nextProvider } from 'react-i18next';
import { ConsoleApp } from './ConsoleApp.tsx';
import { consoleI18n } from './i18n.ts';

import { EnvironmentBanner } from '../shared/environment-banner.tsx';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <I18nextProvider i18n={consoleI18n}>
      <EnvironmentBanner />
      <ConsoleApp />
    </I18nextProvider>
  </StrictMode>,
);
