// The signed-in user's page: missions, wallet, balances, rewards and tickets. When the service is
// away, one notice for the whole page (with a retry) and each panel says it could not load, rather
// than a stack of red boxes and false empty states.
import { useEffect, useState } from 'react';
import { useLoad } from '../shared/ui.tsx';
import { useSharedWords } from '../shared/values.tsx';
import { Balances } from './Balances.tsx';
import { Claims } from './Claims.tsx';
import { Missions } from './Missions.tsx';
import { api, isOutage, Loading, usePageLanguage } from './page-parts.tsx';
import { Tickets } from './Tickets.tsx';
import type { ClaimStatus, Me, TicketFilter } from './types.ts';
import { WalletPanel } from './WalletPanel.tsx';

/** Refetch when the user comes back to the tab (the partner app may have reported progress). */
function useReloadOnReturn(reloads: Array<() => void>) {
  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === 'visible') for (const reload of reloads) reload();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [reloads]);
}

/** The one notice of an outage, in the page's language, with a retry. */
export function OutageNotice({ onRetry }: { onRetry: () => void }) {
  const { words } = useSharedWords();
  return (
    <div className="notice error outage" role="alert" data-testid="outage">
      <p>
        <strong>{words.outageTitle}</strong>
      </p>
      <p>{words.outageBody}</p>
      <button type="button" onClick={onRetry}>
        {words.retry}
      </button>
    </div>
  );
}

/** Every page of one of the user's lists: the service answers a page at a time (nextCursor). */
async function allPages<T>(
  pageAfter: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<{ items: T[]; nextCursor: null }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await pageAfter(cursor);
    items.push(...page.items);
    if (page.nextCursor === null) return { items, nextCursor: null };
    cursor = page.nextCursor;
  }
}

export function Home({ me }: { me: Me }) {
  const { t, lang } = usePageLanguage();
  const { words } = useSharedWords();
  // Titles come back in the page's language (?lang=, docs/i18n.md); a switch fetches them again.
  const missions = useLoad((signal) => api.get('/v1/me/missions', { query: { lang }, signal }), [lang]);
  const balances = useLoad((signal) => api.get('/v1/me/balances', { signal }), []);
  const [claimStatus, setClaimStatus] = useState<ClaimStatus | ''>('');
  const claims = useLoad(
    (signal) =>
      allPages((cursor) =>
        api.get('/v1/me/claims', {
          query: {
            ...(claimStatus ? { status: claimStatus } : {}),
            ...(cursor ? { cursor } : {}),
            limit: 500,
          },
          signal,
        }),
      ),
    [claimStatus],
  );
  const [ticketFilter, setTicketFilter] = useState<TicketFilter>('RECEIVED');
  const tickets = useLoad(
    (signal) =>
      allPages((cursor) =>
        api.get('/v1/me/tickets', {
          query: { filter: ticketFilter, lang, ...(cursor ? { cursor } : {}), limit: 500 },
          signal,
        }),
      ),
    [ticketFilter, lang],
  );
  // The wallet panel loads on its own; a retry mounts it again.
  const [walletKey, setWalletKey] = useState(0);
  const [reloads] = useState(() => [
    missions.reload,
    balances.reload,
    claims.reload,
    tickets.reload,
    () => setWalletKey((k) => k + 1),
  ]);
  useReloadOnReturn(reloads);
  const outage = [missions, balances, claims, tickets].some((s) => !s.loading && isOutage(s.error));
  const retry = () => reloads.forEach((r) => r());
  if (me.mappings.length === 0) {
    return (
      <div className="notice">
        <p>
          <strong>{t('page.noLinkTitle')}</strong>
        </p>
        <p>{t('page.noLinkBody')}</p>
      </div>
    );
  }
  return (
    <>
      {outage && <OutageNotice onRetry={retry} />}
      <section aria-labelledby="missions-heading">
        <div className="section-head">
          <h2 id="missions-heading">{t('missions.heading')}</h2>
          <button type="button" className="secondary small" onClick={retry}>
            {t('missions.refresh')}
          </button>
        </div>
        <Loading state={missions}>{(data) => <Missions data={data} />}</Loading>
      </section>
      {outage ? (
        <section aria-labelledby="wallet-heading" className="panel">
          <h2 id="wallet-heading">{t('wallet.heading')}</h2>
          <p className="could-not-load">{words.couldNotLoad}</p>
        </section>
      ) : (
        <WalletPanel key={walletKey} onBound={claims.reload} />
      )}
      <Balances balances={balances} />
      <Claims claims={claims} status={claimStatus} setStatus={setClaimStatus} />
      <Tickets tickets={tickets} filter={ticketFilter} setFilter={setTicketFilter} />
    </>
  );
}
