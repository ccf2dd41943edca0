import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../shared/base.css';
import './console.css';
import { ConsoleApp } from './ConsoleApp.tsx';

import { EnvironmentBanner } from '../shared/environment-banner.tsx';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <EnvironmentBanner />
    <ConsoleApp />
  </StrictMode>,
);
