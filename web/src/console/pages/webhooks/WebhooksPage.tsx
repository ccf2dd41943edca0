// Webhooks: a partner's endpoints (register, enable/disable, roll the secret, which is shown once),
// and the outbox's messages with each delivery attempt and a re-send (docs/webhooks.md).
import { useState } from 'react';
import { ErrorNotice, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../../shared/ui.tsx';
import { Link } from '../../../shared/router.ts';
import { HexValue } from '../../../shared/values.tsx';
import { LIST_LIMIT, partnerOptions, usePartnerList, withAny } from '../../choices.ts';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { Facts, SectionTitle } from '../../components/PageHeader.tsx';
import { field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
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

const MESSAGE_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
type MessageStatus = (typeof MESSAGE_STATUSES)[number];

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
  const { t } = useConsoleText();
  return (
    <div className="notice warn" role="status">
      <p>{t('webhooksPage.secretOnce')}</p>
      <p>
        <code>{secret}</code>
      </p>
      <button type="button" className="secondary" onClick={onDismiss}>
        {t('secret.stored')}
      </button>
    </div>
  );
}

function EndpointCard({
  endpoint,
  partnerName,
  onChanged,
}: {
  endpoint: Endpoint;
  /** The partner's name (its id until the partner list has loaded). */
  partnerName: string;
  onChanged: () => void;
}) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
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
          [
            t('webhooksPage.partner'),
            <Link to={`/console/partners/${endpoint.partnerId}`}>{partnerName}</Link>,
          ],
          [t('webhooksPage.events'), endpoint.events.join(', ')],
          [t('webhooksPage.created'), formatDateTime(endpoint.createdAt)],
          endpoint.previousSecretExpiresAt !== null && [
            t('webhooksPage.previousSecretUntil'),
            formatDateTime(endpoint.previousSecretExpiresAt),
          ],
        ]}
      />
      {secret && <ShownOnce secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ErrorNotice error={action.error} title={t('webhooksPage.endpointNotChanged')} />
      {session.canWrite && (
        <div className="actions">
          <button type="button" className="secondary" disabled={action.busy} onClick={toggle}>
            {endpoint.enabled ? t('webhooksPage.disable') : t('webhooksPage.enable')}
            <span className="visually-hidden"> {endpoint.url}</span>
          </button>
          <ConfirmButton disabled={action.busy} question={t('webhooksPage.rollQuestion')} onConfirmed={roll}>
            {t('webhooksPage.roll')}
            <span className="visually-hidden"> {endpoint.url}</span>
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
  const { t, formatDateTime, formatNumber } = useConsoleText();
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
        <strong>{message.eventType}</strong> <StatusBadge status={message.status} />{' '}
        <HexValue value={message.id} name={t('webhooksPage.messageId')} /> ·{' '}
        {formatDateTime(message.createdAt)} ·{' '}
        {t('webhooksPage.attempts', { count: message.attempts, shown: formatNumber(message.attempts) })}
        {message.nextAttemptAt && message.status === 'PENDING' && (
          <> · {t('webhooksPage.next', { at: formatDateTime(message.nextAttemptAt) })}</>
        )}
      </p>
      {message.lastError && (
        <p className="muted">{t('webhooksPage.lastError', { error: message.lastError })}</p>
      )}
      <ErrorNotice error={action.error} title={t('webhooksPage.notResent')} />
      <div className="actions">
        <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t('webhooksPage.hideAttempts') : t('webhooksPage.showAttempts')}
          <span className="visually-hidden"> {t('webhooksPage.ofMessage', { id: message.id })}</span>
        </button>
        {session.canWrite && (
          <button type="button" className="secondary" disabled={action.busy} onClick={resend}>
            {t('webhooksPage.resend')}
            <span className="visually-hidden"> {message.id}</span>
          </button>
        )}
      </div>
      {open && detail.data && (
        <table>
          <caption className="visually-hidden">{t('webhooksPage.attemptsOf', { id: message.id })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('webhooksPage.when')}</th>
              <th scope="col">{t('webhooksPage.statusCode')}</th>
              <th scope="col">{t('webhooksPage.error')}</th>
              <th scope="col">{t('webhooksPage.duration')}</th>
            </tr>
          </thead>
          <tbody>
            {detail.data.attemptLog.map((a, i) => (
              <tr key={i}>
                <td>{formatDateTime(a.attemptedAt)}</td>
                <td>{a.statusCode ?? '—'}</td>
                <td>{a.error ?? '—'}</td>
                <td>{t('webhooksPage.ms', { ms: formatNumber(a.durationMs) })}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

/** The URL field's hint for the rules this deployment applies (GET /admin/v1/me says which). */
export function urlHintKey(rules: { httpsRequired: boolean; privateAddressesAllowed: boolean }): string {
  if (rules.httpsRequired)
    return rules.privateAddressesAllowed ? 'webhooksPage.urlHintHttpsPrivate' : 'webhooksPage.urlHint';
  return rules.privateAddressesAllowed ? 'webhooksPage.urlHintPrivate' : 'webhooksPage.urlHintHttp';
}

export function WebhooksPage() {
  const session = useSession();
  const { t } = useConsoleText();
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
        query: { limit: 100, ...(status !== '' && { status: status as MessageStatus }) },
        signal,
      }),
    [status],
  );
  const create = async (form: FormData) => {
    const events = EVENT_TYPES.filter((type) => form.get(`event:${type}`) === 'on') as EventType[];
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
      <p className="muted">{t('webhooksPage.intro')}</p>
      <h2>{t('webhooksPage.endpoints')}</h2>
      {created && <ShownOnce secret={created} onDismiss={() => setCreated(undefined)} />}
      <LoadedList
        state={endpoints}
        label={t('webhooksPage.endpointsLoading')}
        empty={t('webhooksPage.noEndpoints')}
      >
        {(items) => (
          <div className="stack">
            {items.map((e) => (
              <EndpointCard
                key={`${e.id}-${e.enabled}`}
                endpoint={e}
                partnerName={partners.data?.items.find((p) => p.id === e.partnerId)?.name ?? e.partnerId}
                onChanged={endpoints.reload}
              />
            ))}
          </div>
        )}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading={t('webhooksPage.register')}
          failure={t('webhooksPage.notRegistered')}
          submit={t('webhooksPage.registerSubmit')}
          resetOnSuccess
          onSubmit={create}
        >
          <SelectField
            label={t('webhooksPage.partner')}
            name="partnerId"
            options={partnerOptions(partners.data?.items)}
          />
          <TextField
            label={t('webhooksPage.url')}
            name="url"
            type="url"
            required
            maxLength={2048}
            hint={t(urlHintKey(session.identity.webhookUrls))}
          />
          <fieldset>
            <legend>{t('webhooksPage.events')}</legend>
            {EVENT_TYPES.map((type) => (
              <label key={type} className="checkbox">
                <input type="checkbox" name={`event:${type}`} defaultChecked={type.startsWith('claim.')} />{' '}
                {type}
              </label>
            ))}
          </fieldset>
        </ActionForm>
      )}
      <h2>{t('webhooksPage.messages')}</h2>
      <SelectField
        label={t('webhooksPage.status')}
        name="status"
        value={status}
        onChange={(e) => setStatus(e.currentTarget.value)}
        options={withAny(
          t('webhooksPage.anyStatus'),
          MESSAGE_STATUSES.map((value) => ({ value, label: t(`webhooksPage.statuses.${value}`) })),
        )}
      />
      <LoadedList
        state={messages}
        label={t('webhooksPage.messagesLoading')}
        empty={t('webhooksPage.noMessages')}
      >
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
