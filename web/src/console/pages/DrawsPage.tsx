// Lucky draws: create one on a lucky-draw budget (its commitment, the seed's hash, is public at
// once), run it (or let the worker run it at its time), and see the seed and the winners.
import { useState } from 'react';
import { formatDateTime, formatUnits } from '../../shared/format.ts';
import { ErrorNotice, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { budgetOptions, LIST_LIMIT, useBudgetList } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { Facts, SectionTitle } from '../components/PageHeader.tsx';
import { field, localToInstant } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Draw } from '../types.ts';

function DrawCard({ draw, decimals, onChanged }: { draw: Draw; decimals: number; onChanged: () => void }) {
  const session = useSession();
  const run = useAction();
  const [showTickets, setShowTickets] = useState(false);
  const runNow = () =>
    void run.run(async () => {
      await session.api.post('/admin/v1/draws/{id}/run', { path: { id: draw.id } });
      onChanged();
    });
  const drawn = draw.status === 'DRAWN';
  const headingId = `draw-${draw.id}`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {draw.title} <StatusBadge status={draw.status} />
      </h3>
      <Facts
        facts={[
          [
            'Prize',
            `${formatUnits(draw.prizeAmount, decimals)} ${draw.assetSymbol} × ${draw.winnersCount} winner${draw.winnersCount === 1 ? '' : 's'}`,
          ],
          ['Scheduled', formatDateTime(draw.scheduledAt)],
          ['Commitment', <code>{draw.commitment}</code>],
          drawn && ['Drawn', formatDateTime(draw.drawnAt)],
          drawn && ['Seed', <code>{draw.seed}</code>],
          drawn && ['Tickets', draw.ticketCount ?? 0],
          drawn && [
            'Winning tickets',
            draw.winners && draw.winners.length > 0
              ? draw.winners.map((w) => <code key={w.ticketId}>{w.ticketId} </code>)
              : 'none (no tickets)',
          ],
          ['Public page', <a href={`/v1/draws/${draw.id}`}>/v1/draws/{draw.id}</a>],
        ]}
      />
      <ErrorNotice error={run.error} title="The draw did not run" />
      <div className="actions">
        {session.canWrite && draw.status === 'COMMITTED' && (
          <ConfirmButton
            disabled={run.busy}
            question={`Run “${draw.title}” now? Its winners are picked once, for good.`}
            onConfirmed={runNow}
          >
            Run draw now<span className="visually-hidden"> {draw.title}</span>
          </ConfirmButton>
        )}
        {draw.tickets && draw.tickets.length > 0 && (
          <button
            type="button"
            className="secondary"
            aria-expanded={showTickets}
            onClick={() => setShowTickets(!showTickets)}
          >
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
  const draws = useLoad(
    (signal) => session.api.get('/admin/v1/draws', { query: { limit: LIST_LIMIT }, signal }),
    [],
  );
  const budgets = useBudgetList();
  const lucky = (budgets.data?.items ?? []).filter((b) => b.type === 'LUCKY_DRAW');
  const decimalsOf = (budgetId: string) => budgets.data?.items.find((b) => b.id === budgetId)?.decimals ?? 0;
  const create = async (form: FormData) => {
    await session.api.post('/admin/v1/draws', {
      body: {
        budgetId: field(form, 'budgetId'),
        title: field(form, 'title'),
        prizeAmount: field(form, 'prizeAmount'),
        winnersCount: Number(field(form, 'winnersCount')),
        scheduledAt: localToInstant(field(form, 'scheduledAt')) ?? field(form, 'scheduledAt'),
      },
    });
    draws.reload();
  };
  return (
    <>
      <SectionTitle section="draws" />
      <p className="muted">
        Each draw publishes a commitment (the SHA-256 of a secret seed) when created and the seed when run, so
        anyone can recompute the winners from the seed and the tickets.
      </p>
      <LoadedList state={draws} label="draws" empty="No draws yet.">
        {(items) => (
          <div className="stack">
            {items.map((d) => (
              <DrawCard
                key={`${d.id}-${d.status}`}
                draw={d}
                decimals={decimalsOf(d.budgetId)}
                onChanged={() => {
                  // A run pays prizes from the budget: its "left" in the form changes too.
                  draws.reload();
                  budgets.reload();
                }}
              />
            ))}
          </div>
        )}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading="Create a draw"
          failure="The draw was not created"
          submit="Create draw"
          resetOnSuccess
          onSubmit={create}
          unavailable={
            lucky.length === 0 ? (
              <p className="notice warn">Create a lucky-draw budget first (Budgets).</p>
            ) : undefined
          }
        >
          <SelectField label="Budget" name="budgetId" options={budgetOptions(lucky)} />
          <TextField label="Title" name="title" required maxLength={200} />
          <TextField
            label="Prize per winner"
            name="prizeAmount"
            required
            inputMode="decimal"
            pattern="[0-9]+(\.[0-9]+)?"
            hint="In whole units of the budget's asset."
          />
          <TextField
            label="Number of winners"
            name="winnersCount"
            type="number"
            min={1}
            max={100000}
            step={1}
            required
            defaultValue="1"
          />
          <TextField
            label="Draw at"
            name="scheduledAt"
            type="datetime-local"
            required
            hint="The worker runs it then; you may also run it earlier by hand."
          />
        </ActionForm>
      )}
    </>
  );
}
