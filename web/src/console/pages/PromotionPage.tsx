// One promotion: its facts and settings, its mission groups and missions, and the reward each
// mission or group pays (the parts live in ./promotion/).
import { useState } from 'react';
import { Link } from '../../shared/router.ts';
import { ErrorNotice, LoadState, TextField, useLoad } from '../../shared/ui.tsx';
import { useBudgetList, usePartnerList } from '../choices.ts';
import { StreakRewards } from './promotion/StreakRewards.tsx';
import { ActionForm } from '../components/ActionForm.tsx';
import { BackLink, Facts, PageTitle } from '../components/PageHeader.tsx';
import { field } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { Promotion } from '../types.ts';
import { MissionGroupSection } from './promotion/MissionGroupSection.tsx';
import { PromotionSettings } from './promotion/PromotionSettings.tsx';
import { TitleFields, titlesBody } from '../components/TitleFields.tsx';

export function PromotionPage({ id }: { id: string }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const path = { promotionId: id };
  const promotion = useLoad(
    (signal) => session.api.get('/admin/v1/promotions/{promotionId}', { path, signal }),
    [id],
  );
  const partners = usePartnerList();
  const groups = useLoad(
    (signal) => session.api.get('/admin/v1/promotions/{promotionId}/mission-groups', { path, signal }),
    [id],
  );
  const budgets = useBudgetList();
  const rewards = useLoad(
    (signal) => session.api.get('/admin/v1/promotions/{id}/rewards', { path: { id }, signal }),
    [id],
  );
  const [current, setCurrent] = useState<Promotion | undefined>();
  const shown = current?.id === id ? current : promotion.data;
  const partnerName = partners.data?.items.find((p) => p.id === shown?.partnerId)?.name;

  const addGroup = async (form: FormData) => {
    await session.api.post('/admin/v1/promotions/{promotionId}/mission-groups', {
      path,
      body: { title: field(form, 'title'), ...titlesBody(form) },
    });
    groups.reload();
  };

  return (
    <>
      <BackLink to="/console/promotions">{t('nav.promotions')}</BackLink>
      <LoadState state={promotion} label={t('promotionPage.loading')}>
        {() =>
          shown && (
            <>
              <PageTitle title={shown.title} status={shown.status} />
              <Facts
                facts={[
                  [t('promotionPage.id'), <code>{shown.id}</code>],
                  [
                    t('promotionPage.partner'),
                    <Link to={`/console/partners/${shown.partnerId}`}>{partnerName ?? shown.partnerId}</Link>,
                  ],
                  [
                    t('promotionPage.firstActive'),
                    shown.activatedAt ? formatDateTime(shown.activatedAt) : t('promotionPage.neverActive'),
                  ],
                ]}
              />
              {shown.type === 'DAILY_CHECK' && (
                <StreakRewards promotionId={shown.id} budgets={budgets.data?.items ?? []} />
              )}
              <h2>{t('promotionPage.groups')}</h2>
              <ErrorNotice error={rewards.error} title={t('promotionPage.rewardsNotShown')} />
              <LoadState state={groups} label={t('promotionPage.groupsLoading')}>
                {(data) => (
                  <>
                    {data.items.length === 0 && <p>{t('promotionPage.noGroups')}</p>}
                    {data.items.map((g) => (
                      <MissionGroupSection
                        key={g.id}
                        group={g}
                        promotion={shown}
                        budgets={budgets.data?.items ?? []}
                        rewards={rewards.data?.items ?? []}
                        onRewardsChanged={rewards.reload}
                      />
                    ))}
                  </>
                )}
              </LoadState>
              {session.canWrite && (
                <ActionForm
                  heading={t('promotionPage.addGroup')}
                  headingLevel={3}
                  failure={t('promotionPage.groupNotCreated')}
                  submit={t('promotionPage.addGroupSubmit')}
                  resetOnSuccess
                  onSubmit={addGroup}
                >
                  <TextField label={t('promotionPage.groupTitle')} name="title" required maxLength={200} />
                  <TitleFields />
                </ActionForm>
              )}
              {/* Missions first: the settings (about a screen of fields) are folded below them. */}
              <details className="settings-fold" data-testid="promotion-settings">
                <summary>{t('promotionPage.settingsFold')}</summary>
                <PromotionSettings
                  key={shown.updatedAt + String(partners.data?.items.length)}
                  promotion={shown}
                  partners={partners.data?.items ?? []}
                  onSaved={setCurrent}
                />
              </details>
            </>
          )
        }
      </LoadState>
    </>
  );
}
