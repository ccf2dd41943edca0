// The user's lucky-draw tickets by filter (to earn, received, drawn); a winning ticket says what it
// paid ("You won 20 DEVT") and links to its draw.
import { Link } from '../shared/router.ts';
import type { Loaded } from '../shared/ui.tsx';
import { Amount } from '../shared/values.tsx';
import { describePeriod, Loading, Status, usePageLanguage } from './page-parts.tsx';
import type { MyTicket, TicketFilter } from './types.ts';

const TICKET_FILTERS: Array<{ value: TicketFilter; label: string }> = [
  { value: 'NOT_RECEIVED', label: 'tickets.toEarn' },
  { value: 'RECEIVED', label: 'tickets.received' },
  { value: 'DRAWN', label: 'tickets.drawn' },
];

function DrawnTicket({ ticket }: { ticket: MyTicket }) {
  const { t } = usePageLanguage();
  return (
    <>
      {ticket.won ? (
        <span className="won" data-testid="ticket-won">
          <span className="badge ok">{t('tickets.won')}</span> {t('tickets.youWon')}{' '}
          {ticket.prize ? (
            <>
              <Amount
                value={ticket.prize.amount}
                decimals={ticket.prize.decimals}
                symbol={ticket.prize.assetSymbol}
              />
              {ticket.prize.claimStatus !== 'SUCCEEDED' && (
                <>
                  {' '}
                  <Status status={ticket.prize.claimStatus} />
                </>
              )}
            </>
          ) : null}
        </span>
      ) : (
        <span className="badge muted">{t('tickets.lost')}</span>
      )}{' '}
      {ticket.drawId && <Link to={`/app/draws/${ticket.drawId}`}>{t('tickets.seeDraw')}</Link>}
    </>
  );
}

export function Tickets({
  tickets,
  filter,
  setFilter,
}: {
  tickets: Loaded<{ items: MyTicket[] }>;
  filter: TicketFilter;
  setFilter: (filter: TicketFilter) => void;
}) {
  const { t, lang } = usePageLanguage();
  return (
    <section aria-labelledby="tickets-heading" className="panel">
      <h2 id="tickets-heading">{t('tickets.heading')}</h2>
      <div className="tabs" role="group" aria-label={t('tickets.show')}>
        {TICKET_FILTERS.map((f) => (
          <button
            key={f.value}
            type="button"
            aria-pressed={filter === f.value}
            onClick={() => setFilter(f.value)}
          >
            {t(f.label)}
          </button>
        ))}
      </div>
      <Loading state={tickets}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">
              {filter === 'NOT_RECEIVED'
                ? t('tickets.noneToEarn')
                : filter === 'RECEIVED'
                  ? t('tickets.noneReceived')
                  : t('tickets.noneDrawn')}
            </p>
          ) : (
            <ul className="plain-list">
              {data.items.map((ticket) => (
                <li key={ticket.id ?? `${ticket.missionId}-${ticket.periodKey}`}>
                  <strong>{ticket.missionTitle}</strong>{' '}
                  <span className="muted">{describePeriod(ticket.periodKey, t, lang)}</span>{' '}
                  {ticket.status === 'NOT_RECEIVED' ? (
                    <span className="muted">{t('tickets.howToEarn')}</span>
                  ) : ticket.status === 'DRAWN' ? (
                    <DrawnTicket ticket={ticket} />
                  ) : (
                    <Status status="RECEIVED" />
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Loading>
    </section>
  );
}
