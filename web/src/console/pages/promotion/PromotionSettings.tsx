// A promotion's settings form: partner, type, start and time zone are locked once it has been ACTIVE
// (the service refuses changing them, 2102), so they are shown disabled and never sent.
import { SelectField, TextField } from '../../../shared/ui.tsx';
import { useSharedWords } from '../../../shared/values.tsx';
import { partnerOptions } from '../../choices.ts';
import { ActionForm } from '../../components/ActionForm.tsx';
import { choice, field, inZone, instantToLocal, localToInstant } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';
import type { BodyOf } from '../../../shared/api-client.ts';
import type { Partner, Promotion } from '../../types.ts';
import { TitleFields, titlesBody, titlesOf } from '../../components/TitleFields.tsx';

export function PromotionSettings({
  promotion,
  partners,
  onSaved,
}: {
  promotion: Promotion;
  partners: Partner[];
  onSaved: (p: Promotion) => void;
}) {
  const session = useSession();
  const { t } = useConsoleText();
  const { lang } = useSharedWords();
  const readOnly = !session.canWrite;
  // activatedAt is set for good the first time the promotion is ACTIVE.
  const locked = promotion.activatedAt !== null || readOnly;
  const lockable = {
    disabled: locked,
    hint: promotion.activatedAt !== null ? t('promotionPage.locked') : undefined,
  };
  const save = async (form: FormData) => {
    const endAt = field(form, 'endAt');
    const body: BodyOf<'patch', '/admin/v1/promotions/{promotionId}'> = {
      title: field(form, 'title'),
      status: choice<Promotion['status']>(form, 'status'),
      endAt: endAt === '' ? null : localToInstant(endAt),
    };
    // Disabled (locked) fields are not in the form data, so they are never sent.
    if (form.has('partnerId')) body.partnerId = field(form, 'partnerId');
    if (form.has('type')) body.type = choice<Promotion['type']>(form, 'type');
    if (form.has('timezone')) body.timezone = field(form, 'timezone');
    if (form.has('startAt')) body.startAt = localToInstant(field(form, 'startAt')) ?? field(form, 'startAt');
    Object.assign(body, titlesBody(form, titlesOf(promotion)));
    onSaved(
      await session.api.patch('/admin/v1/promotions/{promotionId}', {
        path: { promotionId: promotion.id },
        body,
      }),
    );
  };
  return (
    <ActionForm
      heading={t('promotionPage.settings')}
      failure={t('promotionPage.notSaved')}
      confirmation={t('promotionPage.saved')}
      submit={t('promotionPage.save')}
      readOnly={readOnly}
      onSubmit={save}
    >
      <SelectField
        label={t('promotionsPage.partner')}
        name="partnerId"
        defaultValue={promotion.partnerId}
        {...lockable}
        options={partnerOptions(partners)}
      />
      <SelectField
        label={t('promotionsPage.type')}
        name="type"
        defaultValue={promotion.type}
        {...lockable}
        options={[
          { value: 'COMPOSITE', label: t('promotionsPage.composite') },
          { value: 'DAILY_CHECK', label: t('promotionsPage.dailyCheck') },
        ]}
      />
      <TextField
        label={t('promotionsPage.title')}
        name="title"
        defaultValue={promotion.title}
        required
        maxLength={200}
        disabled={readOnly}
      />
      {!readOnly && <TitleFields titles={titlesOf(promotion)} />}
      <TextField
        label={t('promotionsPage.timezone')}
        name="timezone"
        defaultValue={promotion.timezone}
        required
        {...lockable}
      />
      <TextField
        label={t('promotionsPage.starts')}
        name="startAt"
        type="datetime-local"
        defaultValue={instantToLocal(promotion.startAt)}
        required
        {...lockable}
        hint={[
          t('promotionsPage.startsBoth', {
            zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
            promotionZone: promotion.timezone,
            there: inZone(promotion.startAt, promotion.timezone, lang),
          }),
          lockable.hint,
        ]
          .filter(Boolean)
          .join(' ')}
      />
      <TextField
        label={t('promotionsPage.ends')}
        name="endAt"
        type="datetime-local"
        defaultValue={instantToLocal(promotion.endAt)}
        disabled={readOnly}
      />
      <SelectField
        label={t('promotionsPage.status')}
        name="status"
        defaultValue={promotion.status}
        disabled={readOnly}
        options={[
          { value: 'INACTIVE', label: t('promotionsPage.inactive') },
          { value: 'ACTIVE', label: t('promotionsPage.active') },
        ]}
      />
    </ActionForm>
  );
}
