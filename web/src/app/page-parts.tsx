// The small parts every panel of the mission page uses: the page's language, loading (a placeholder,
// never a stale hint), "could not load" when the service is away (the page shows one notice for it),
// status badges and periods in the page's language.
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { ApiError } from '../shared/api.ts';
import { createApiClient } from '../shared/api-client.ts';
import { ErrorNotice } from '../shared/ui.tsx';
import type { Loaded } from '../shared/ui.tsx';
import { useSharedWords } from '../shared/values.tsx';
import { currentLanguage } from './i18n.ts';
import type { Language } from './i18n.ts';
import { formatDay, formatMonth } from './locale-format.ts';

/** The typed end-user API (the session cookie signs the calls). */
export const api = createApiClient();

/** The page's translations and its current language (for Intl formatting and ?lang=). */
export function usePageLanguage(): { t: TFunction; lang: Language } {
  const { t, i18n } = useTranslation();
  return { t, lang: currentLanguage(i18n) };
}

/** The service is away (no answer, 5xx, busy): one notice for the page, not one per panel. */
export function isOutage(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 0 || error.status >= 500);
}

/**
 * A panel's data: a placeholder while it loads (also when a filter changed, so the old list or its
 * empty hint never shows meanwhile), "could not load" when the service is away, another failure
 * in words, then the content.
 */
export function Loading<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ReactNode }) {
  const { words } = useSharedWords();
  if (state.loading) {
    return (
      <div className="placeholder" aria-busy="true" data-testid="loading">
        <span className="visually-hidden" role="status">
          {words.loading}
        </span>
        <span className="placeholder-line" />
        <span className="placeholder-line short" />
      </div>
    );
  }
  if (state.error !== undefined && isOutage(state.error)) {
    return (
      <p className="could-not-load" data-testid="could-not-load">
        {words.couldNotLoad}
      </p>
    );
  }
  return (
    <>
      <ErrorNotice error={state.error} forUser />
      {state.data === undefined ? null : children(state.data)}
    </>
  );
}

const TONES: Record<string, string> = {
  SUCCEEDED: 'ok',
  DRAWN: 'info',
  RECEIVED: 'info',
  COMMITTED: 'info',
  REQUESTED: 'info',
  RESERVED: 'muted',
  REJECTED: 'danger',
  FAILED: 'danger',
};

/** A status badge in the page's language (the same look as the console's). */
export function Status({ status }: { status: string }) {
  const { t } = usePageLanguage();
  return (
    <span className={`badge ${TONES[status] ?? 'muted'}`}>
      {t(`status.${status}`, { defaultValue: status.replaceAll('_', ' ').toLowerCase() })}
    </span>
  );
}

/** A period key as the language says it: ONCE, W2026-11-16 (a week), 2026-11-23 (a day), 2026-11. */
export function describePeriod(periodKey: string, t: TFunction, lang: Language): string {
  if (periodKey === 'ONCE') return t('missions.once');
  if (periodKey.startsWith('W')) return t('missions.weekOf', { date: formatDay(periodKey.slice(1), lang) });
  if (/^\d{4}-\d{2}-\d{2}$/.test(periodKey)) return formatDay(periodKey, lang);
  if (/^\d{4}-\d{2}$/.test(periodKey)) return formatMonth(periodKey, lang);
  return periodKey;
}
