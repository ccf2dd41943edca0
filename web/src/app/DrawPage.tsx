// /app/draws/{id}: a lucky draw anyone can check: its title in the page's language, prize, ticket
// close, commitment, the chain block mixed into the seed (a chain budget's draw), the seed (after
// the draw), the tickets and the winners; long hex values shortened and copyable.
import { Link } from '../shared/router.ts';
import { useLoad } from '../shared/ui.tsx';
import { Amount, HexValue } from '../shared/values.tsx';
import { formatCount, formatDateTime } from './locale-format.ts';
import { api, Loading, Status, usePageLanguage } from './page-parts.tsx';

export function DrawPage({ id }: { id: string }) {
  const { t, lang } = usePageLanguage();
  // The title comes in the page's language (falling back to the default title): asked again when
  // the language changes.
  const draw = useLoad(
    (signal) => api.get('/v1/draws/{id}', { path: { id }, query: { lang }, signal }),
    [id, lang],
  );
  return (
    <>
      <p>
        <Link to="/app">{t('draw.back')}</Link>
      </p>
      <Loading state={draw}>
        {(d) => {
          const network = d.beacon ? (d.beacon.networkName ?? `#${d.beacon.chainId}`) : '';
          return (
            <article className="panel">
              <h2>
                {d.title} <Status status={d.status} />
              </h2>
              <dl className="facts">
                <dt>{t('draw.prize')}</dt>
                <dd>
                  <Amount value={d.prizeAmount} decimals={d.decimals ?? 0} symbol={d.assetSymbol} /> ×{' '}
                  {formatCount(d.winnersCount, lang)}
                </dd>
                <dt>{t('draw.closes')}</dt>
                <dd>{formatDateTime(d.closesAt, lang)}</dd>
                <dt>{d.status === 'DRAWN' ? t('draw.drawn') : t('draw.drawTime')}</dt>
                <dd>{formatDateTime(d.drawnAt ?? d.scheduledAt, lang)}</dd>
                <dt>{t('draw.commitment')}</dt>
                <dd>
                  <HexValue value={d.commitment} name={t('draw.commitment')} />
                </dd>
                {d.beacon && (
                  <>
                    <dt>{t('draw.block')}</dt>
                    <dd>
                      {d.beacon.blockHash ? (
                        <>
                          {t('draw.blockOf', {
                            network,
                            number: formatCount(d.beacon.blockNumber ?? 0, lang),
                          })}{' '}
                          <HexValue value={d.beacon.blockHash} name={t('draw.block')} />
                        </>
                      ) : (
                        t('draw.blockLater', { network })
                      )}
                    </dd>
                  </>
                )}
                <dt>{t('draw.seed')}</dt>
                <dd>{d.seed ? <HexValue value={d.seed} name={t('draw.seed')} /> : t('draw.seedLater')}</dd>
                {d.status === 'DRAWN' && (
                  <>
                    <dt>{t('draw.tickets')}</dt>
                    <dd>{formatCount(d.ticketCount ?? 0, lang)}</dd>
                    <dt>{t('draw.winners')}</dt>
                    <dd>
                      {d.winners && d.winners.length > 0 ? (
                        <ul className="plain-list winners">
                          {d.winners.map((w) => (
                            <li key={w.ticketId}>
                              <HexValue value={w.ticketId} name={t('draw.winningTicket')} />
                            </li>
                          ))}
                        </ul>
                      ) : (
                        t('draw.noWinners')
                      )}
                    </dd>
                  </>
                )}
              </dl>
              <p className="muted">{t(d.beacon ? 'draw.explainChain' : 'draw.explain')}</p>
              {d.tickets && d.tickets.length > 0 && (
                <details className="draw-tickets">
                  <summary>{t('draw.allTickets', { n: formatCount(d.tickets.length, lang) })}</summary>
                  <ol className="plain-list">
                    {d.tickets.map((ticket) => (
                      <li key={ticket}>
                        <code>{ticket}</code>
                      </li>
                    ))}
                  </ol>
                </details>
              )}
              <p>
                <a href={`/v1/draws/${encodeURIComponent(d.id)}`}>{t('draw.data')}</a>
              </p>
            </article>
          );
        }}
      </Loading>
    </>
  );
}
