// A secret just created (an admin credential's), shown until the operator says it is stored.
import { useId } from 'react';
import { useConsoleText } from '../i18n.ts';

export function ShownOnce({
  label,
  secret,
  onDismiss,
}: {
  label: string;
  secret: string;
  onDismiss: () => void;
}) {
  const { t } = useConsoleText();
  const id = useId();
  return (
    <div className="notice warn" role="status">
      <p>
        <strong>{t('secret.once')}</strong>
      </p>
      <p>
        <label htmlFor={id}>{label}</label>
        <input id={id} readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
      </p>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => void navigator.clipboard?.writeText(secret)}
        >
          {t('secret.copy')}
        </button>
        <button type="button" className="secondary" onClick={onDismiss}>
          {t('secret.stored')}
        </button>
      </div>
    </div>
  );
}
