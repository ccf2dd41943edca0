// Users: a partner's user looked up by their partner user id (mapping, platform account, progress;
// unlink with confirmation) or by platform account (the partner users linked to it).
import { DataTable } from '../../shared/data-table.tsx';
import { Link } from '../../shared/router.ts';
import { ErrorNotice, LoadState, SelectField, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { partnerOptions, usePartnerList } from '../choices.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { FilterForm, useQueryFilters } from '../components/FilterForm.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { Facts } from '../components/PageHeader.tsx';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import { WaitingRewards } from './claims/WaitingRewards.tsx';

const FILTERS = ['partnerId', 'partnerUid', 'account'] as const;

function userLink(partnerId: string, partnerUid: string): string {
  return `/console/users?${new URLSearchParams({ partnerId, partnerUid }).toString()}`;
}

function PartnerUser({ partnerId, partnerUid }: { partnerId: string; partnerUid: string }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const path = { partnerId, partnerUid };
  const mapping = useLoad(
    (signal) =>
      session.api.get('/admin/v1/partners/{partnerId}/users/{partnerUid}/mapping', { path, signal }),
    [partnerId, partnerUid],
  );
  const progress = useLoad(
    (signal) =>
      session.api.get('/admin/v1/partners/{partnerId}/users/{partnerUid}/progress', { path, signal }),
    [partnerId, partnerUid],
  );
  const unlink = useAction();
  const remove = () =>
    void unlink.run(async () => {
      await session.api.delete('/admin/v1/partners/{partnerId}/users/{partnerUid}/mapping', { path });
      mapping.reload();
    });
  return (
    <>
      <h2>{t('users.mappingOf', { partnerUid })}</h2>
      <LoadState state={mapping} label={t('users.mapping')}>
        {(m) => (
          <>
            <Facts
              facts={[
                [t('users.linkedAt'), formatDateTime(m.linkedAt)],
                [t('users.region'), m.region],
                [t('users.account'), <code>{m.account.id}</code>],
                [t('users.login'), `${m.account.issuer} · ${m.account.subject}`],
                [t('users.displayName'), m.account.displayName ?? '—'],
              ]}
            />
            <ErrorNotice error={unlink.error} title={t('users.notUnlinked')} />
            {session.canWrite && (
              <div className="actions">
                <ConfirmButton
                  className="danger"
                  disabled={unlink.busy}
                  question={t('users.unlinkQuestion', { partnerUid })}
                  onConfirmed={remove}
                >
                  {t('users.unlink')}
                </ConfirmButton>
              </div>
            )}
          </>
        )}
      </LoadState>
      <h2>{t('users.progress')}</h2>
      <LoadedList state={progress} label={t('users.progress')} empty={t('users.noProgress')}>
        {(items) => (
          <DataTable
            caption={t('users.progress')}
            columns={[t('users.mission'), t('users.period'), t('users.gauge'), t('users.updated')]}
          >
            {items.map((p) => (
              <tr key={`${p.missionId}-${p.periodKey}`}>
                <td>
                  <code>{p.missionKey}</code>
                </td>
                <td>{p.periodKey}</td>
                <td>
                  {p.current ?? 0}
                  {p.target !== null && ` / ${p.target}`} {p.completed && `· ${t('users.completed')}`}
                </td>
                <td>{formatDateTime(p.updatedAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>
      <WaitingRewards partnerId={partnerId} partnerUid={partnerUid} />
    </>
  );
}

function AccountUsers({ partnerId, account }: { partnerId: string; account: string }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const users = useLoad(
    (signal) =>
      session.api.get('/admin/v1/partners/{partnerId}/users', {
        path: { partnerId },
        query: { account },
        signal,
      }),
    [partnerId, account],
  );
  return (
    <LoadedList state={users} label={t('users.found')} empty={t('users.noneForAccount')}>
      {(items) => (
        <DataTable caption={t('users.found')} columns={[t('users.partnerUid'), t('users.linkedAt')]}>
          {items.map((u) => (
            <tr key={u.partnerUid}>
              <td>
                <Link to={userLink(u.partnerId, u.partnerUid)}>{u.partnerUid}</Link>
              </td>
              <td>{formatDateTime(u.linkedAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </LoadedList>
  );
}

export function UsersPage() {
  const { t } = useConsoleText();
  const { filter, search } = useQueryFilters(FILTERS);
  const partners = usePartnerList();
  const partnerId = filter.partnerId || partners.data?.items[0]?.id || '';
  return (
    <>
      <h1>{t('nav.users')}</h1>
      <p className="muted">{t('users.intro')}</p>
      <FilterForm
        key={search.toString() + String(partners.data?.items.length)}
        label={t('users.find')}
        path="/console/users"
        names={FILTERS}
        submit={t('users.find')}
      >
        <SelectField
          label={t('users.partner')}
          name="partnerId"
          defaultValue={partnerId}
          options={partnerOptions(partners.data?.items)}
        />
        <TextField
          label={t('users.partnerUid')}
          name="partnerUid"
          defaultValue={filter.partnerUid}
          maxLength={256}
        />
        <TextField
          label={t('users.accountId')}
          name="account"
          defaultValue={filter.account}
          maxLength={64}
          hint={t('users.accountHint')}
        />
      </FilterForm>
      {partnerId !== '' && filter.partnerUid !== '' && (
        <PartnerUser partnerId={partnerId} partnerUid={filter.partnerUid} />
      )}
      {partnerId !== '' && filter.account !== '' && (
        <AccountUsers partnerId={partnerId} account={filter.account} />
      )}
    </>
  );
}
