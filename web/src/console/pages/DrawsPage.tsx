// Lucky draws: create one on a lucky-draw budget (its commitment, the seed's hash, is public at
// once), run it (or let the worker run it at its time), and see the seed and the winners.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { formatDateTime, formatUnits } from '../../shared/format.ts';
import { ErrorNotice, LoadState, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field, localToInstant } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Budget, Draw, Items } from '../types.ts';

function DrawCard({ draw, decimals, onChanged }: { draw: Draw; decimals: number; onChanged: () => void }) {
  const session = useSession();
  const run = useAction();
  const [showTickets, setShowTickets] = useState(false);
  const runNow = async () => {
    if (!window.confirm(`Run “${draw.title}” now? Its winners are picked once, for good.`)) return;
    await run.run(async () => {
      await session.api('POST', `/admin/v1/draws/${draw.id}/run`);
      onChanged();
    });
  };
  const headingId = `draw-${draw.id}`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {draw.title} <StatusBadge status={draw.status} />
      </h3>
      <dl className="facts">
        <dt>Prize</dt>
        <dd>
          {formatUnits(draw.prizeAmount, decimals)} {draw.assetSymbol} × {draw.winnersCount} winner{draw.winnersCount === 1 ? '' : 's'}
        </dd>
        <dt>Scheduled</dt>
        <dd>{formatDateTime(draw.scheduledAt)}</dd>
        <dt>Commitment</dt>
        <dd>
          <code>{draw.commitment}</code>
        </dd>
        {draw.status === 'DRAWN' && (
          <>
            <dt>Drawn</dt>
            <dd>{formatDateTime(draw.drawnAt)}</dd>
            <dt>Seed</dt>
            <dd>
              <code>{draw.seed}</code>
            </dd>
            <dt>Tickets</dt>
            <dd>{draw.ticketCount ?? 0}</dd>
            <dt>Winning tickets</dt>
            <dd>{draw.winners && draw.winners.length > 0 ? draw.winners.map((w) => <code key={w.ticketId}>{w.ticketId} </code>) : 'none (no tickets)'}</dd>
          </>
        )}
        <dt>Public page</dt>
        <dd>
          <a href={`/v1/draws/${draw.id}`}>/v1/draws/{draw.id}</a>
        </dd>
      </dl>
      <ErrorNotice error={run.error} title="The draw did not run" />
      <div className="actions">
        {session.canWrite && draw.status === 'COMMITTED' && (
          <button type="button" disabled={run.busy} onClick={() => void runNow()}>
            Run draw now<span className="visually-hidden"> {draw.title}</span>
          </button>
        )}
        {draw.tickets && draw.tickets.length > 0 && (
          <button type="button" className="secondary" aria-expanded={showTickets} onClick={() => setShowTickets(!showTickets)}>
            {showTickets ? 'Hide' : 'Show'} all {draw.tickets.length} tickets
          </button>
        )}
      </div>
      {showTickets && draw.tickets && (
        <ol className="ticket-list">
          {draw.tickets.map((t) => (
            <li key={t}>
              <code>{t}</code>
              {draw.winners?.some((w) => w.ticketId === t) && <span className="badge ok"> winner</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function DrawsPage() {
  const session = useSession();
  const draws = useLoad(() => session.api<Items<Draw>>('GET', '/admin/v1/draws?limit=500'), []);
  const budgets = useLoad(() => session.api<Items<Budget>>('GET', '/admin/v1/budgets?limit=500'), []);
  const create = useAction();
  const lucky = (budgets.data?.items ?? []).filter((b) => b.type === 'LUCKY_DRAW');
  const decimalsOf = (budgetId: string) => budgets.data?.items.find((b) => b.id === budgetId)?.decimals ?? 0;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    await create.run(async () => {
      await session.api('POST', '/admin/v1/draws', {
        budgetId: field(form, 'budgetId'),
        title: field(form, 'title'),
        prizeAmount: field(form, 'prizeAmount'),
        winnersCount: Number(field(form, 'winnersCount')),
        scheduledAt: localToInstant(field(form, 'scheduledAt')) ?? field(form, 'scheduledAt'),
      });
      formElement.reset();
      draws.reload();
    });
  };
  return (
    <>
      <h1>Lucky draws</h1>
      <p className="muted">
        Each draw publishes a commitment (the SHA-256 of a secret seed) when created and the seed when run, so anyone can recompute the winners from the seed and the
        tickets.
      </p>
      <LoadState state={draws} label="draws">
        {(data) =>
          data.items.length === 0 ? (
            <p>No draws yet.</p>
          ) : (
            <div className="stack">
              {data.items.map((d) => (
                <DrawCard key={`${d.id}-${d.status}`} draw={d} decimals={decimalsOf(d.budgetId)} onChanged={draws.reload} />
              ))}
            </div>
          )
        }
      </LoadState>
      {session.canWrite && (
        <form onSubmit={(e) => void submit(e)} aria-labelledby="new-draw">
          <h2 id="new-draw">Create a draw</h2>
          <ErrorNotice error={create.error} title="The draw was not created" />
          {lucky.length === 0 ? (
            <p className="notice warn">Create a lucky-draw budget first (Budgets).</p>
          ) : (
            <>
              <SelectField label="Budget" name="budgetId" options={lucky.map((b) => ({ value: b.id, label: `${b.name} (${formatUnits(b.remaining, b.decimals)} ${b.assetSymbol} left)` }))} />
              <TextField label="Title" name="title" required maxLength={200} />
              <TextField label="Prize per winner" name="prizeAmount" required inputMode="decimal" pattern="[0-9]+(\.[0-9]+)?" hint="In whole units of the budget's asset." />
              <TextField label="Number of winners" name="winnersCount" type="number" min={1} max={100000} step={1} required defaultValue="1" />
              <TextField label="Draw at" name="scheduledAt" type="datetime-local" required hint="The worker runs it then; you may also run it earlier by hand." />
              <div className="actions">
                <button type="submit" disabled={create.busy}>
                  Create draw
                </button>
              </div>
            </>
          )}
        </form>
      )}
    </>
  );
}
