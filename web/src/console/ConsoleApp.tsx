// The operator console: sign-in with an admin secret, then a navigation over the operator API's
// resources. Write controls are shown only to roles that may write.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { ApiError } from '../shared/api.ts';
import { createApiClient } from '../shared/api-client.ts';
import { Link, matchPath, useLocation } from '../shared/router.ts';
import { ErrorNotice, TextField } from '../shared/ui.tsx';
import type { ConsoleSession } from './session.tsx';
import type { AdminIdentity } from './types.ts';
import { SessionContext, storedSecret, storeSecret, whoAmI } from './session.tsx';
import { DashboardPage } from './pages/DashboardPage.tsx';
import { PartnersPage } from './pages/PartnersPage.tsx';
import { PartnerPage } from './pages/PartnerPage.tsx';
import { PromotionsPage } from './pages/PromotionsPage.tsx';
import { PromotionPage } from './pages/PromotionPage.tsx';
import { AssetsPage } from './pages/AssetsPage.tsx';
import { ChainPage } from './pages/chain/ChainPage.tsx';
import { BudgetsPage } from './pages/BudgetsPage.tsx';
import { BudgetPage } from './pages/BudgetPage.tsx';
import { ClaimsPage } from './pages/ClaimsPage.tsx';
import { DrawsPage } from './pages/DrawsPage.tsx';
import { WebhooksPage } from './pages/webhooks/WebhooksPage.tsx';

interface Route {
  pattern: string;
  title: string;
  /** Shown in the navigation under this label. */
  nav?: string;
  render(params: Record<string, string>): ReactNode;
}

const ROUTES: Route[] = [
  { pattern: '/console', title: 'Dashboard', nav: 'Dashboard', render: () => <DashboardPage /> },
  { pattern: '/console/partners', title: 'Partners', nav: 'Partners', render: () => <PartnersPage /> },
  { pattern: '/console/partners/:id', title: 'Partner', render: (p) => <PartnerPage id={p.id ?? ''} /> },
  {
    pattern: '/console/promotions',
    title: 'Promotions',
    nav: 'Promotions',
    render: () => <PromotionsPage />,
  },
  {
    pattern: '/console/promotions/:id',
    title: 'Promotion',
    render: (p) => <PromotionPage id={p.id ?? ''} />,
  },
  { pattern: '/console/assets', title: 'Reward assets', nav: 'Reward assets', render: () => <AssetsPage /> },
  { pattern: '/console/budgets', title: 'Budgets', nav: 'Budgets', render: () => <BudgetsPage /> },
  // [chain payout]
  { pattern: '/console/chain', title: 'Chain payouts', nav: 'Chain payouts', render: () => <ChainPage /> },
  { pattern: '/console/budgets/:id', title: 'Budget', render: (p) => <BudgetPage id={p.id ?? ''} /> },
  { pattern: '/console/claims', title: 'Claims', nav: 'Claims', render: () => <ClaimsPage /> },
  { pattern: '/console/draws', title: 'Lucky draws', nav: 'Lucky draws', render: () => <DrawsPage /> },
  { pattern: '/console/webhooks', title: 'Webhooks', nav: 'Webhooks', render: () => <WebhooksPage /> },
];

function SignIn({
  onSignedIn,
  problem,
}: {
  onSignedIn: (secret: string, identity: AdminIdentity) => void;
  problem: unknown;
}) {
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
      <h1>Operator console</h1>
      <p>
        Sign in with an admin credential secret. It stays in this browser tab only and is sent with each
        request.
      </p>
      <ErrorNotice error={error} title="Not signed in" />
      <form onSubmit={(e) => void submit(e)}>
        <TextField
          label="Admin secret"
          name="secret"
          type="password"
          autoComplete="off"
          required
          hint="Given once when the credential was created (or the ADMIN_TOKEN of the service)."
        />
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </main>
  );
}

function Layout({ session }: { session: ConsoleSession }) {
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
  const title = current?.route.title ?? 'Not found';
  useEffect(() => {
    document.title = `${title} · Operator console`;
  }, [title]);
  // After a navigation, move focus to the page so screen readers start at its heading.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [path]);
  const section = (pattern: string) =>
    path === pattern || (pattern !== '/console' && path.startsWith(`${pattern}/`));
  return (
    <div className="console">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header>
        <span className="brand">Mission rewards · console</span>
        <span className="who">
          <span>
            {session.identity.name} <span className="badge">{session.identity.role}</span>
          </span>
          <button type="button" onClick={session.signOut}>
            Sign out
          </button>
        </span>
      </header>
      <nav aria-label="Console sections">
        <ul>
          {ROUTES.filter((r) => r.nav).map((r) => (
            <li key={r.pattern}>
              <Link to={r.pattern} aria-current={section(r.pattern) ? 'page' : undefined}>
                {r.nav}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {!session.canWrite && (
          <p className="notice role-note" role="note">
            Read-only: your role is {session.identity.role}, so changes are not offered here.
          </p>
        )}
        {current ? (
          current.route.render(current.params)
        ) : (
          <>
            <h1>Not found</h1>
            <p>
              No console page at <code>{path}</code>. <Link to="/console">Back to the dashboard</Link>.
            </p>
          </>
        )}
      </main>
    </div>
  );
}

export function ConsoleApp() {
  const [signedIn, setSignedIn] = useState<{ secret: string; identity: AdminIdentity } | undefined>();
  const [checking, setChecking] = useState(() => storedSecret() !== undefined);
  const [problem, setProblem] = useState<unknown>(undefined);

  // A secret kept from earlier in this tab: check it is still good before showing anything.
  useEffect(() => {
    const secret = storedSecret();
    if (secret === undefined) return;
    const controller = new AbortController();
    whoAmI(secret, controller.signal).then(
      (identity) => {
        setSignedIn({ secret, identity });
        setChecking(false);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        storeSecret(undefined);
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
        Checking your sign-in…
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
