// Webhooks: a partner's endpoints (register, enable/disable, roll the secret, which is shown once),
// and the outbox's messages with each delivery attempt and a re-send (docs/webhooks.md).
import { useState } from 'react';
import { formatDateTime } from '../../../shared/format.ts';
import { ErrorNotice, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../../shared/ui.tsx';
import { LIST_LIMIT, partnerOptions, usePartnerList, withAny } from '../../choices.ts';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { Facts, SectionTitle } from '../../components/PageHeader.tsx';
import { field } from '../../forms.ts';
import { useSession } from '../../session.tsx';

/** The event types an endpoint may subscribe to (the API's enum). */
export const EVENT_TYPES = [
  'user.linked',
  'user.unlinked',
  'mission.completed',
  'claim.reserved',
  'claim.requested',
  'claim.rejected',
  'claim.failed',
  'claim.succeeded',
  'draw.run',
] as const;
type EventType = (typeof EVENT_TYPES)[number];

interface Endpoint {
  id: string;
  partnerId: string;
  url: string;
  events: string[];
  enabled: boolean;
  previousSecretExpiresAt: string | null;
  createdAt: string;
}

/** A secret the service shows once: kept on screen until dismissed. */
function ShownOnce({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  return (
    <div className="notice warn" role="status">
      <p>The signing secret, shown only now: give it to the partner (their receiver verifies with it).</p>
      <p>
        <code>{secret}</code>
      </p>
      <button type="button" className="secondary" onClick={onDismiss}>
        I have stored it
      </button>
    </div>
  );
}

function EndpointCard({ endpoint, onChanged }: { endpoint: Endpoint; onChanged: () => void }) {
  const session = useSession();
  const action = useAction();
  const [secret, setSecret] = useState<string>();
  const headingId = `endpoint-${endpoint.id}`;
  const toggle = () =>
    void action.run(async () => {
      await session.api.patch('/admin/v1/webhook-endpoints/{id}', {
        path: { id: endpoint.id },
        body: { enabled: !endpoint.enabled },
      });
      onChanged();
    });
  const roll = () =>
    void action.run(async () => {
      const rolled = await session.api.post('/admin/v1/webhook-endpoints/{id}/roll-secret', {
        path: { id: endpoint.id },
      });
      setSecret(rolled.secret);
      onChanged();
    });
  return (
    <section className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        <code>{endpoint.url}</code> <StatusBadge status={endpoint.enabled ? 'ACTIVE' : 'DISABLED'} />
      </h3>
      <Facts
        facts={[
          ['Partner', endpoint.partnerId],
          ['Events', endpoint.events.join(', ')],
          ['Created', formatDateTime(endpoint.createdAt)],
          endpoint.previousSecretExpiresAt !== null && [
            'Previous secret signs until',
            formatDateTime(endpoint.previousSecretExpiresAt),
          ],
        ]}
      />
      {secret && <ShownOnce secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ErrorNotice error={action.error} title="The endpoint was not changed" />
      {session.canWrite && (
        <div className="actions">
          <button type="button" className="secondary" disabled={action.busy} onClick={toggle}>
            {endpoint.enabled ? 'Disable' : 'Enable'}
            <span className="visually-hidden"> {endpoint.url}</span>
          </button>
          <ConfirmButton
            disabled={action.busy}
            question="Roll the secret? The old one keeps signing for 24 hours."
            onConfirmed={roll}
          >
            Roll secret<span className="visually-hidden"> {endpoint.url}</span>
          </ConfirmButton>
        </div>
      )}
    </section>
  );
}

interface Message {
  id: string;
  endpointId: string;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
}

function MessageRow({ message, onChanged }: { message: Message; onChanged: () => void }) {
  const session = useSession();
  const action = useAction();
  const [open, setOpen] = useState(false);
  const detail = useLoad(
    (signal) =>
      open
        ? session.api.get('/admin/v1/webhook-messages/{id}', { path: { id: message.id }, signal })
        : Promise.resolve(undefined),
    [open, message.id, message.attempts],
  );
  const resend = () =>
    void action.run(async () => {
      await session.api.post('/admin/v1/webhook-messages/{id}/resend', { path: { id: message.id } });
      onChanged();
    });
  return (
    <li className="card">
      <p>
        <strong>{message.eventType}</strong> <StatusBadge status={message.status} /> <code>{message.id}</code>{' '}
        · {formatDateTime(message.createdAt)} · {message.attempts} attempt{message.attempts === 1 ? '' : 's'}
        {message.nextAttemptAt && message.status === 'PENDING' && (
          <> · next {formatDateTime(message.nextAttemptAt)}</>
        )}
      </p>
      {message.lastError && <p className="muted">Last error: {message.lastError}</p>}
      <ErrorNotice error={action.error} title="The message was not re-sent" />
      <div className="actions">
        <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide' : 'Show'} attempts<span className="visually-hidden"> of {message.id}</span>
        </button>
        {session.canWrite && (
          <button type="button" className="secondary" disabled={action.busy} onClick={resend}>
            Re-send<span className="visually-hidden"> {message.id}</span>
          </button>
        )}
      </div>
      {open && detail.data && (
        <table>
          <caption className="visually-hidden">Attempts of {message.id}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Status code</th>
              <th scope="col">Error</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {detail.data.attemptLog.map((a, i) => (
              <tr key={i}>
                <td>{formatDateTime(a.attemptedAt)}</td>
                <td>{a.statusCode ?? '—'}</td>
                <td>{a.error ?? '—'}</td>
                <td>{a.durationMs} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

export function WebhooksPage() {
  const session = useSession();
  const partners = usePartnerList();
  const [status, setStatus] = useState('');
  const [created, setCreated] = useState<string>();
  const endpoints = useLoad(
    (signal) => session.api.get('/admin/v1/webhook-endpoints', { query: { limit: LIST_LIMIT }, signal }),
    [],
  );
  const messages = useLoad(
    (signal) =>
      session.api.get('/admin/v1/webhook-messages', {
        query: { limit: 100, ...(status !== '' && { status: status as 'PENDING' | 'DELIVERED' | 'FAILED' }) },
        signal,
      }),
    [status],
  );
  const create = async (form: FormData) => {
    const events = EVENT_TYPES.filter((t) => form.get(`event:${t}`) === 'on') as EventType[];
    const answer = await session.api.post('/admin/v1/partners/{partnerId}/webhook-endpoints', {
      path: { partnerId: field(form, 'partnerId') },
      body: { url: field(form, 'url'), events },
    });
    setCreated(answer.secret);
    endpoints.reload();
  };
  return (
    <>
      <SectionTitle section="webhooks" />
      <p className="muted">
        Partners learn of links, completions, claims and draws at their endpoints, signed per Standard
        Webhooks and retried for three days.
      </p>
      <h2>Endpoints</h2>
      {created && <ShownOnce secret={created} onDismiss={() => setCreated(undefined)} />}
      <LoadedList state={endpoints} label="endpoints" empty="No webhook endpoints yet.">
        {(items) => (
          <div className="stack">
            {items.map((e) => (
              <EndpointCard key={`${e.id}-${e.enabled}`} endpoint={e} onChanged={endpoints.reload} />
            ))}
          </div>
        )}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading="Register an endpoint"
          failure="The endpoint was not registered"
          submit="Register endpoint"
          resetOnSuccess
          onSubmit={create}
        >
          <SelectField label="Partner" name="partnerId" options={partnerOptions(partners.data?.items)} />
          <TextField
            label="URL"
            name="url"
            type="url"
            required
            maxLength={2048}
            hint="https, on a public address."
          />
          <fieldset>
            <legend>Events</legend>
            {EVENT_TYPES.map((t) => (
              <label key={t} className="checkbox">
                <input type="checkbox" name={`event:${t}`} defaultChecked={t.startsWith('claim.')} /> {t}
              </label>
            ))}
          </fieldset>
        </ActionForm>
      )}
      <h2>Messages</h2>
      <SelectField
        label="Status"
        name="status"
        value={status}
        onChange={(e) => setStatus(e.currentTarget.value)}
        options={withAny('Any status', [
          { value: 'PENDING', label: 'Pending' },
          { value: 'DELIVERED', label: 'Delivered' },
          { value: 'FAILED', label: 'Failed' },
        ])}
      />
      <LoadedList state={messages} label="messages" empty="No messages.">
        {(items) => (
          <ol className="stack plain">
            {items.map((m) => (
              <MessageRow key={`${m.id}-${m.attempts}-${m.status}`} message={m} onChanged={messages.reload} />
            ))}
          </ol>
        )}
      </LoadedList>
    </>
  );
}
