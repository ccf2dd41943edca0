// Audit log: who changed what and when, filtered by entity type, actor and dates, each change shown
// as the fields that differ before and after. Read-only: nothing here edits or deletes.
// Entities are named (from their own recorded fields) and linked to their console page where they
// have one. Typed from the generated API schema (GET /admin/v1/audit-events).
import type { AnswerOf, ItemOf } from '../../shared/api-client.ts';
import { DataTable } from '../../shared/data-table.tsx';
import { Link } from '../../shared/router.ts';
import { LoadState, TextField, useLoad } from '../../shared/ui.tsx';
import { FilterForm, useQueryFilters } from '../components/FilterForm.tsx';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';

export type AuditEvent = ItemOf<AnswerOf<'get', '/admin/v1/audit-events'>>;

/** The console page of an entity, for the types that have one. */
const ENTITY_PAGES: Record<string, (id: string) => string> = {
  partner: (id) => `/console/partners/${id}`,
  promotion: (id) => `/console/promotions/${id}`,
  budget: (id) => `/console/budgets/${id}`,
  budget_caps: (id) => `/console/budgets/${id}`,
};

/** What people call the entity, from the fields the change recorded (its name, title, symbol, url). */
function entityName(event: AuditEvent): string | undefined {
  const record = event.after ?? event.before ?? {};
  for (const key of ['name', 'title', 'symbol', 'url', 'prefix']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function Entity({ event }: { event: AuditEvent }) {
  const { t } = useConsoleText();
  const name = entityName(event);
  const page = ENTITY_PAGES[event.entityType];
  const label = name ?? event.entityId;
  return (
    <>
      <span className="muted">
        {t(`audit.entityTypes.${event.entityType}`, { defaultValue: event.entityType })}
      </span>{' '}
      {page && event.action !== 'delete' ? (
        <Link to={page(event.entityId)}>{label}</Link>
      ) : (
        <strong>{label}</strong>
      )}
      {name !== undefined && (
        <>
          {' '}
          <code className="muted">{event.entityId}</code>
        </>
      )}
    </>
  );
}

const FILTERS = ['entityType', 'actorId', 'since', 'until', 'page'] as const;
const PAGE = 50;

/** The fields that differ between before and after, with both values as text. */
export function changedFields(event: Pick<AuditEvent, 'before' | 'after'>): Array<[string, string, string]> {
  const before = event.before ?? {};
  const after = event.after ?? {};
  const text = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .sort()
    .filter((key) => text(before[key]) !== text(after[key]))
    .map((key) => [key, text(before[key]), text(after[key])]);
}

function Diff({ event }: { event: AuditEvent }) {
  const { t } = useConsoleText();
  const fields = changedFields(event);
  if (fields.length === 0) return <span className="muted">{t('audit.noChange')}</span>;
  return (
    <details>
      <summary>{t('audit.fields', { count: fields.length })}</summary>
      <dl className="diff">
        {fields.map(([key, before, after]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              {before !== '' && <del aria-label={t('audit.before')}>{before}</del>}{' '}
              {after !== '' && <ins aria-label={t('audit.after')}>{after}</ins>}
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

/** A date field's day as the start (or the end) of that day in the operator's time zone. */
function dayBound(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const date = new Date(`${day}T00:00:00`);
  if (end) date.setDate(date.getDate() + 1);
  return date.toISOString();
}

export function AuditPage() {
  const session = useSession();
  const { t, formatDateTime, formatNumber } = useConsoleText();
  const { filter, search } = useQueryFilters(FILTERS);
  const page = Math.max(0, Number(filter.page) || 0);
  const events = useLoad(
    (signal) =>
      session.api.get('/admin/v1/audit-events', {
        query: {
          entityType: filter.entityType || undefined,
          actorId: filter.actorId || undefined,
          since: dayBound(filter.since, false),
          until: dayBound(filter.until, true),
          limit: PAGE,
          offset: page * PAGE,
        },
        signal,
      }),
    FILTERS.map((f) => filter[f]),
  );
  const pageLink = (n: number) => {
    const next = new URLSearchParams(search);
    next.set('page', String(n));
    return `/console/audit?${next.toString()}`;
  };
  return (
    <>
      <h1>{t('nav.audit')}</h1>
      <p className="muted">{t('audit.intro')}</p>
      <FilterForm
        key={search.toString()}
        label={t('audit.filter')}
        path="/console/audit"
        names={['entityType', 'actorId', 'since', 'until']}
        reload={events.reload}
        submit={t('audit.show')}
      >
        <TextField
          label={t('audit.entityType')}
          name="entityType"
          defaultValue={filter.entityType}
          maxLength={64}
        />
        <TextField label={t('audit.actor')} name="actorId" defaultValue={filter.actorId} maxLength={64} />
        <TextField label={t('audit.since')} name="since" type="date" defaultValue={filter.since} />
        <TextField label={t('audit.until')} name="until" type="date" defaultValue={filter.until} />
      </FilterForm>
      <LoadState state={events} label={t('nav.audit')}>
        {(data) =>
          data.items.length === 0 ? (
            <p>{t('audit.none')}</p>
          ) : (
            <>
              <DataTable
                showCaption
                caption={t('audit.caption', {
                  from: formatNumber(page * PAGE + 1),
                  to: formatNumber(page * PAGE + data.items.length),
                  total: formatNumber(data.total),
                })}
                columns={[
                  t('audit.at'),
                  t('audit.actor'),
                  t('audit.action'),
                  t('audit.entity'),
                  t('audit.changes'),
                ]}
              >
                {data.items.map((e) => (
                  <tr key={e.id}>
                    <td>{formatDateTime(e.at)}</td>
                    <td>
                      {e.actor.name} <code className="muted">{e.actor.id}</code>
                    </td>
                    <td>{t(`audit.actions.${e.action}`)}</td>
                    <td>
                      <Entity event={e} />
                    </td>
                    <td>
                      <Diff event={e} />
                    </td>
                  </tr>
                ))}
              </DataTable>
              <div className="actions">
                {page > 0 && <Link to={pageLink(page - 1)}>{t('audit.newer')}</Link>}
                {(page + 1) * PAGE < data.total && <Link to={pageLink(page + 1)}>{t('audit.older')}</Link>}
              </div>
            </>
          )
        }
      </LoadState>
    </>
  );
}
