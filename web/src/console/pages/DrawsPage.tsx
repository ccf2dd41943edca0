// Lucky draws: create one on a lucky-draw budget (its commitment, the seed's hash, is public at
// once; its tickets close at a time fixed now), give it titles per language, run it (or let the
// worker run it at its time), and see the seed, the chain block mixed into it and the winners.
import { useState } from 'react';
import { HexValue, useAmountText } from '../../shared/values.tsx';
import { ErrorNotice, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { LIST_LIMIT, useBudgetList } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { Facts, SectionTitle } from '../components/PageHeader.tsx';
import { TitleFields, titlesBody } from '../components/TitleFields.tsx';
import { field, localToInstant } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { Draw } from '../types.ts';

function DrawCard({ draw, decimals, onChanged }: { draw: Draw; decimals: number; onChanged: () => void }) {
  const session = useSession();
  const { t, formatDateTime, formatNumber } = useConsoleText();
  const amountText = useAmountText();
  const run = useAction();
  const [showTickets, setShowTickets] = useState(false);
  const runNow = () =>
    void run.run(async () => {
      await session.api.post('/admin/v1/draws/{id}/run', { path: { id: draw.id } });
      onChanged();
    });
  const drawn = draw.status === 'DRAWN';
  const headingId = `draw-${draw.id}`;
  const saveTitles = async (form: FormData) => {
    await session.api.patch('/admin/v1/draws/{id}', {
      path: { id: draw.id },
      body: { title: field(form, 'title'), ...titlesBody(form, draw.titles) },
    });
    onChanged();
  };
  const beacon = draw.beacon;
  const network = beacon ? (beacon.networkName ?? `#${beacon.chainId}`) : '';
  return (
    <section className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {draw.title} <StatusBadge status={draw.status} />
      </h3>
      <Facts
        facts={[
          [
            t('drawsPage.prize'),
            t('drawsPage.prizeValue', {
              amount: amountText(draw.prizeAmount, decimals, draw.assetSymbol),
              count: draw.winnersCount,
              n: formatNumber(draw.winnersCount),
            }),
          ],
          [t('drawsPage.closes'), formatDateTime(draw.closesAt)],
          [t('drawsPage.scheduled'), formatDateTime(draw.scheduledAt)],
          [t('drawsPage.commitment'), <HexValue value={draw.commitment} name={t('drawsPage.commitment')} />],
          beacon !== null && [
            t('drawsPage.beacon'),
            beacon.blockHash ? (
              <>
                {t('drawsPage.beaconBlock', { network, number: formatNumber(beacon.blockNumber ?? 0) })}{' '}
                <HexValue value={beacon.blockHash} name={t('drawsPage.beacon')} />
              </>
            ) : (
              t('drawsPage.beaconLater', { network })
            ),
          ],
          drawn && [t('drawsPage.drawn'), formatDateTime(draw.drawnAt)],
          drawn && [t('drawsPage.seed'), <HexValue value={draw.seed ?? ''} name={t('drawsPage.seed')} />],
          drawn && [t('drawsPage.tickets'), formatNumber(draw.ticketCount ?? 0)],
          drawn && [
            t('drawsPage.winningTickets'),
            draw.winners && draw.winners.length > 0
              ? draw.winners.map((w) => <code key={w.ticketId}>{w.ticketId} </code>)
              : t('drawsPage.noTickets'),
          ],
          [
            t('drawsPage.publicPage'),
            <a href={`/app/draws/${draw.id}`} target="_blank" rel="noreferrer">
              /app/draws/{draw.id}
            </a>,
          ],
        ]}
      />
      <ErrorNotice error={run.error} title={t('drawsPage.notRun')} />
      <div className="actions">
        {session.canWrite && draw.status === 'COMMITTED' && (
          <ConfirmButton
            disabled={run.busy}
            question={t('drawsPage.runQuestion', { title: draw.title })}
            onConfirmed={runNow}
          >
            {t('drawsPage.runNow')}
            <span className="visually-hidden"> {draw.title}</span>
          </ConfirmButton>
        )}
        {draw.tickets && draw.tickets.length > 0 && (
          <button
            type="button"
            className="secondary"
            aria-expanded={showTickets}
            onClick={() => setShowTickets(!showTickets)}
          >
            {t(showTickets ? 'drawsPage.hideTickets' : 'drawsPage.showTickets', {
              count: draw.tickets.length,
              n: formatNumber(draw.tickets.length),
            })}
          </button>
        )}
      </div>
      {session.canWrite && (
        <details className="draw-titles">
          <summary>{t('drawsPage.editTitles')}</summary>
          <ActionForm
            label={t('drawsPage.editTitles')}
            failure={t('drawsPage.titlesNotSaved')}
            submit={t('drawsPage.saveTitles')}
            confirmation={t('drawsPage.titlesSaved')}
            onSubmit={saveTitles}
          >
            <TextField
              label={t('drawsPage.title')}
              name="title"
              required
              maxLength={200}
              defaultValue={draw.title}
            />
            <TitleFields titles={draw.titles} />
          </ActionForm>
        </details>
      )}
      {showTickets && draw.tickets && (
        <ol className="ticket-list">
          {draw.tickets.map((ticket) => (
            <li key={ticket}>
              <code>{ticket}</code>
              {draw.winners?.some((w) => w.ticketId === ticket) && (
                <span className="badge ok"> {t('drawsPage.winner')}</span>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** `closesAt` when the operator gave one (else the draw closes at its scheduled time). */
function closesAtBody(value: string | undefined): { closesAt?: string } {
  if (value === undefined || value === '') return {};
  return { closesAt: localToInstant(value) ?? value };
}

export function DrawsPage() {
  const session = useSession();
  const { t } = useConsoleText();
  const amountText = useAmountText();
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
        ...titlesBody(form),
        prizeAmount: field(form, 'prizeAmount'),
        winnersCount: Number(field(form, 'winnersCount')),
        scheduledAt: localToInstant(field(form, 'scheduledAt')) ?? field(form, 'scheduledAt'),
        ...closesAtBody(field(form, 'closesAt')),
      },
    });
    draws.reload();
  };
  return (
    <>
      <SectionTitle section="draws" />
      <p className="muted">{t('drawsPage.intro')}</p>
      <LoadedList state={draws} label={t('drawsPage.list')} empty={t('drawsPage.none')}>
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
          heading={t('drawsPage.create')}
          failure={t('drawsPage.notCreated')}
          submit={t('drawsPage.submit')}
          resetOnSuccess
          onSubmit={create}
          unavailable={
            lucky.length === 0 ? <p className="notice warn">{t('drawsPage.needBudget')}</p> : undefined
          }
        >
          <SelectField
            label={t('drawsPage.budget')}
            name="budgetId"
            options={lucky.map((b) => ({
              value: b.id,
              label: t('drawsPage.budgetOption', {
                name: b.name,
                remaining: amountText(b.remaining, b.decimals, b.assetSymbol),
              }),
            }))}
          />
          <TextField label={t('drawsPage.title')} name="title" required maxLength={200} />
          <TitleFields />
          <TextField
            label={t('drawsPage.prizePerWinner')}
            name="prizeAmount"
            required
            inputMode="decimal"
            pattern="[0-9]+(\.[0-9]+)?"
            hint={t('drawsPage.prizeHint')}
          />
          <TextField
            label={t('drawsPage.winnersCount')}
            name="winnersCount"
            type="number"
            min={1}
            max={100000}
            step={1}
            required
            defaultValue="1"
          />
          <TextField
            label={t('drawsPage.closesAt')}
            name="closesAt"
            type="datetime-local"
            hint={t('drawsPage.closesAtHint')}
          />
          <TextField
            label={t('drawsPage.drawAt')}
            name="scheduledAt"
            type="datetime-local"
            required
            hint={t('drawsPage.drawAtHint')}
          />
        </ActionForm>
      )}
    </>
  );
}
