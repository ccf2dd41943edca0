// The operator console: sign-in with an admin secret, then a navigation over the operator API's
// resources. Write controls are shown only to roles that may write.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { ApiError, retryTransient } from '../shared/api.ts';
import { createApiClient } from '../shared/api-client.ts';
import { Link, matchPath, useLocation } from '../shared/router.ts';
import { ErrorNotice, TextField } from '../shared/ui.tsx';
import type { ConsoleSession } from './session.tsx';
import type { AdminIdentity } from './types.ts';
import { SessionContext, storedSecret, storeSecret, whoAmI } from './session.tsx';
import { ROUTES } from './routes.tsx';
import type { Route } from './routes.tsx';
import {
  switchConsoleLanguage,
  LANGUAGE_NAMES,
  LANGUAGES,
  supportedLanguage,
  useConsoleText,
} from './i18n.ts';

/** The console's language, chosen here and remembered in this browser. */
function LanguageSwitcher() {
  const { t, locale } = useConsoleText();
  return (
    <label className="language">
      <span>{t('common.language')}</span>{' '}
      <select
        value={supportedLanguage(locale) ?? 'en'}
        onChange={(e) => switchConsoleLanguage(supportedLanguage(e.target.value) ?? 'en')}
      >
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}

function SignIn({
  onSignedIn,
  problem,
}: {
  onSignedIn: (secret: string, identity: AdminIdentity) => void;
  problem: unknown;
}) {
  const { t } = useConsoleText();
  const [error, setError] = useState<unknown>(problem);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const secret = String(new FormData(event.currentTarget).get('secret') ?? '').trim();
    if (secret === '') return;
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(secret, await whoAmI(secret));
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <h1>{t('signIn.title')}</h1>
      <p>{t('signIn.intro')}</p>
      <ErrorNotice error={error} title={t('signIn.failed')} />
      <form onSubmit={(e) => void submit(e)}>
        <TextField
          label={t('signIn.secret')}
          name="secret"
          type="password"
          autoComplete="off"
          required
          hint={t('signIn.secretHint')}
        />
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? t('signIn.busy') : t('signIn.submit')}
          </button>
        </div>
      </form>
      <LanguageSwitcher />
    </main>
  );
}

function Layout({ session }: { session: ConsoleSession }) {
  const { t } = useConsoleText();
  const { path } = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  let current: { route: Route; params: Record<string, string> } | undefined;
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) {
      current = { route, params };
      break;
    }
  }
  const title = t(current?.route.title ?? 'common.notFound');
  const appTitle = t('signIn.title');
  useEffect(() => {
    document.title = `${title} · ${appTitle}`;
  }, [title, appTitle]);
  // After a navigation, move focus to the page so screen readers start at its heading.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [path]);
  // On a phone the sections are one sideways-scrolling row: keep the current one in view.
  useEffect(() => {
    document
      .querySelector('.console > nav a[aria-current="page"]')
      ?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [path]);
  const section = (pattern: string) =>
    path === pattern || (pattern !== '/console' && path.startsWith(`${pattern}/`));
  return (
    <div className="console">
      <a className="skip-link" href="#main">
        {t('common.skip')}
      </a>
      <header>
        <span className="brand">{t('common.brand')}</span>
        <span className="who">
          <span>
            {session.identity.name} <span className="badge">{session.identity.role}</span>
          </span>
          <LanguageSwitcher />
          <button type="button" onClick={session.signOut}>
            {t('common.signOut')}
          </button>
        </span>
      </header>
      <nav aria-label={t('common.sections')}>
        <ul>
          {ROUTES.filter((r) => r.nav && (!r.ownerOnly || session.identity.role === 'OWNER')).map((r) => (
            <li key={r.pattern}>
              <Link to={r.pattern} aria-current={section(r.pattern) ? 'page' : undefined}>
                {t(r.title)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {!session.canWrite && (
          <p className="notice role-note" role="note">
            {t('common.readOnly', { role: session.identity.role })}
          </p>
        )}
        {current ? (
          current.route.render(current.params)
        ) : (
          <>
            <h1>{t('common.notFound')}</h1>
            <p>
              {t('common.noPage')} <code>{path}</code>.{' '}
              <Link to="/console">{t('common.backToDashboard')}</Link>
            </p>
          </>
        )}
      </main>
    </div>
  );
}

/** `problem`: why the page's first sign-in code did not sign in, shown on the sign-in form. */
export function ConsoleApp({ problem: firstProblem }: { problem?: unknown } = {}) {
  const [signedIn, setSignedIn] = useState<{ secret: string; identity: AdminIdentity } | undefined>();
  const [checking, setChecking] = useState(() => storedSecret() !== undefined);
  const [problem, setProblem] = useState<unknown>(firstProblem);
  const { t } = useConsoleText();

  // A secret kept from earlier in this tab: check it is still good before showing anything.
  useEffect(() => {
    const secret = storedSecret();
    if (secret === undefined) return;
    const controller = new AbortController();
    // A service starting or busy for a moment is asked again; only a refused secret (3200: revoked,
    // unknown) is forgotten. One that could not be checked (the service away, rate-limited) stays
    // for the next load, or an OWNER whose secret was shown once would lose it to a restart.
    retryTransient(() => whoAmI(secret, controller.signal), undefined, controller.signal).then(
      (identity) => {
        setSignedIn({ secret, identity });
        setChecking(false);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.code === 3200) storeSecret(undefined);
        setProblem(error);
        setChecking(false);
      },
    );
    return () => controller.abort();
  }, []);

  const signOut = useCallback((reason?: unknown) => {
    storeSecret(undefined);
    setSignedIn(undefined);
    setProblem(reason);
  }, []);

  const session = useMemo<ConsoleSession | undefined>(() => {
    if (!signedIn) return undefined;
    return {
      identity: signedIn.identity,
      canWrite: signedIn.identity.role !== 'VIEWER',
      api: createApiClient({
        bearer: signedIn.secret,
        onError: (error) => {
          // Revoked while signed in: back to the sign-in form, saying why.
          if (error instanceof ApiError && error.code === 3200) signOut(error);
        },
      }),
      signOut: () => signOut(),
    };
  }, [signedIn, signOut]);

  if (checking) {
    return (
      <p role="status" className="signin">
        {t('signIn.checking')}
      </p>
    );
  }
  if (!session) {
    return (
      <SignIn
        problem={problem}
        onSignedIn={(secret, identity) => {
          storeSecret(secret);
          setProblem(undefined);
          setSignedIn({ secret, identity });
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Layout session={session} />
    </SessionContext.Provider>
  );
}
