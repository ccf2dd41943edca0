import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../shared/base.css';
import './app.css';
import { MissionPage } from './MissionPage.tsx';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <MissionPage />
  </StrictMode>,
);
