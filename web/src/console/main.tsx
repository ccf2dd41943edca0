import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../shared/base.css';
import './console.css';
import { I18nextProvider } from 'react-i18next';
import { ConsoleApp } from './ConsoleApp.tsx';
import { consoleI18n } from './i18n.ts';
import { exchangeFirstSignInCode } from './first-sign-in.ts';

import { EnvironmentBanner } from '../shared/environment-banner.tsx';

// A first sign-in code in the address (development) becomes this tab's sign-in before rendering;
// why it did not (used, expired, the service away) is shown on the sign-in form.
void exchangeFirstSignInCode().then((failure) =>
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <I18nextProvider i18n={consoleI18n}>
        <EnvironmentBanner audience="operator" />
        <ConsoleApp problem={failure} />
      </I18nextProvider>
    </StrictMode>,
  ),
);
