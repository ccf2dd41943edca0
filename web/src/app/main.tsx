import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../shared/base.css';
import './app.css';
import { MissionPage } from './MissionPage.tsx';

import { EnvironmentBanner } from '../shared/environment-banner.tsx';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <EnvironmentBanner />
    <MissionPage />
  </StrictMode>,
);
