// The end user's mission page (/app): the header (title, language, who is signed in), then the
// signed-in user's page (Home.tsx), the sign-in prompt, or a draw's page (/app/draws/{id}).
// Signed in with the platform session cookie.
import { useEffect, useState } from 'react';
import { apiRequest, ApiError } from '../shared/api.ts';
import { matchPath, useLocation } from '../shared/router.ts';
import { ErrorNotice, useLoad } from '../shared/ui.tsx';
import { DrawPage } from './DrawPage.tsx';
import { Home, OutageNotice } from './Home.tsx';
import { LanguageSwitcher } from './LanguageSwitcher.tsx';
import { api, isOutage, Loading, usePageLanguage } from './page-parts.tsx';
import { remember, SIGNED_OUT_KEY, signInHref } from './sign-in.ts';

export function MissionPage() {
  const { t } = usePageLanguage();
  const { path } = useLocation();
  const me = useLoad((signal) => api.get('/v1/me', { signal }), []);
  const drawMatch = matchPath('/app/draws/:id', path);
  const signedOut = me.error instanceof ApiError && me.error.status === 401;
  const [signingOut, setSigningOut] = useState<unknown>(undefined);
  // Signed in again: the next sign-out sets the mark anew.
  useEffect(() => {
    if (me.data) remember(SIGNED_OUT_KEY, null);
  }, [me.data]);

  useEffect(() => {
    document.title = drawMatch ? t('page.drawTitle') : t('page.title');
  }, [drawMatch, t]);

  const signOut = async () => {
    try {
      await apiRequest('POST', '/v1/logout');
      remember(SIGNED_OUT_KEY, '1');
      window.location.assign('/app');
    } catch (error) {
      setSigningOut(error);
    }
  };

  return (
    <div className="mission-page">
      <header className="top">
        <h1>{t('page.title')}</h1>
        <LanguageSwitcher />
        {me.data && (
          <div className="who">
            <span>{me.data.displayName ?? t('page.signedIn')}</span>
            <button type="button" className="secondary small" onClick={() => void signOut()}>
              {t('page.signOut')}
            </button>
          </div>
        )}
      </header>
      <main id="main">
        <ErrorNotice error={signingOut} title={t('page.notSignedOut')} forUser />
        {drawMatch ? (
          <DrawPage id={drawMatch.id ?? ''} />
        ) : signedOut ? (
          <div className="signin-panel">
            <p>{t('page.signInPrompt')}</p>
            <a className="button" href={signInHref()}>
              {t('page.signIn')}
            </a>
          </div>
        ) : !me.loading && isOutage(me.error) ? (
          <OutageNotice onRetry={me.reload} />
        ) : (
          <Loading state={me}>
            {(data) => (
              <>
                {data.mappings.length > 0 && (
                  <p className="muted linked">
                    {t('page.linked', { partners: data.mappings.map((m) => m.partnerName).join(', ') })}
                  </p>
                )}
                <Home me={data} />
              </>
            )}
          </Loading>
        )}
      </main>
    </div>
  );
}
