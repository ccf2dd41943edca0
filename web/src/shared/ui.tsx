// Small building blocks shared by both pages: loading data, error notices in words, labelled
// fields, status badges.
import { useCallback, useEffect, useId, useState } from 'react';
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { describeError } from './error-words.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` on mount and whenever `deps` (plain values) change; `reload` runs it again. Stale answers are dropped. */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: ReadonlyArray<string | number | boolean | null | undefined>,
): Loaded<T> {
  const [tick, setTick] = useState(0);
  // One key per request (its inputs and the reload count); the state remembers which request it
  // answers, so "loading" needs no state change of its own.
  const request = JSON.stringify([...deps, tick]);
  const [state, setState] = useState<{ request: string | undefined; data: T | undefined; error: unknown }>({
    request: undefined,
    data: undefined,
    error: undefined,
  });
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ request, data, error: undefined });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ request, data: s.data, error }));
      },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `load` changes every render; `request` stands for its inputs
  }, [request]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.request !== request, reload };
}

/**
 * An error from the service in words, with its code and the service's message. `forUser` (the
 * mission page): the words and the code only; the service's message is English, for operators.
 */
export function ErrorNotice({
  error,
  title,
  forUser,
}: {
  error: unknown;
  title?: string;
  forUser?: boolean;
}) {
  // The page's own language (each page provides its i18next instance); hooks run before any return.
  const { i18n } = useTranslation();
  if (error === undefined || error === null) return null;
  const { summary, reference, detail } = describeError(error, i18n.resolvedLanguage ?? i18n.language);
  return (
    <div className="notice error" role="alert">
      <p>
        <strong>{title ?? summary}</strong>
      </p>
      {title !== undefined && <p>{summary}</p>}
      {forUser ? (
        <p className="muted reference">{reference}</p>
      ) : (
        <p>
          <span className="muted">{reference}:</span> {detail}
        </p>
      )}
    </div>
  );
}

/** Shows a loader, then the error, then the content; keeps old data on screen while reloading. */
export function LoadState<T>({
  state,
  children,
  label,
}: {
  state: Loaded<T>;
  children: (data: T) => ReactNode;
  label: string;
}) {
  const { t } = useTranslation();
  return (
    <>
      <ErrorNotice error={state.error} />
      {state.data === undefined ? (
        state.loading ? (
          <p role="status" className="muted">
            {t('common.loadingWhat', { what: label })}
          </p>
        ) : null
      ) : (
        children(state.data)
      )}
    </>
  );
}

interface FieldBase {
  label: string;
  hint?: ReactNode;
}

/** A label, an optional hint tied to the control with aria-describedby, and the control itself. */
function LabelledField({
  label,
  hint,
  control,
}: FieldBase & { control: (attributes: { id: string; 'aria-describedby'?: string }) => ReactNode }) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint !== undefined && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
      {control({ id, ...(hint !== undefined && { 'aria-describedby': hintId }) })}
    </div>
  );
}

export function TextField({ label, hint, ...input }: FieldBase & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <LabelledField label={label} hint={hint} control={(attributes) => <input {...attributes} {...input} />} />
  );
}

export function TextArea({ label, hint, ...input }: FieldBase & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <LabelledField
      label={label}
      hint={hint}
      control={(attributes) => <textarea {...attributes} {...input} />}
    />
  );
}

export function SelectField({
  label,
  hint,
  options,
  ...select
}: FieldBase &
  SelectHTMLAttributes<HTMLSelectElement> & { options: ReadonlyArray<{ value: string; label: string }> }) {
  return (
    <LabelledField
      label={label}
      hint={hint}
      control={(attributes) => (
        <select {...attributes} {...select}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

const TONES: Record<string, string> = {
  ACTIVE: 'ok',
  SUCCEEDED: 'ok',
  DRAWN: 'info',
  RECEIVED: 'info',
  COMMITTED: 'info',
  SCHEDULED: 'muted',
  REQUESTED: 'info',
  RESERVED: 'muted',
  INACTIVE: 'muted',
  NOT_RECEIVED: 'muted',
  DISABLED: 'danger',
  REJECTED: 'danger',
  FAILED: 'danger',
  REVOKED: 'danger',
};

/** A status in the page's language (`badges.<STATUS>` of its messages), else the status in lower case. */
export function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  const words = t(`badges.${status}`, { defaultValue: status.replaceAll('_', ' ').toLowerCase() });
  return <span className={`badge ${TONES[status] ?? 'muted'}`}>{words}</span>;
}

/** Runs a form action, remembering its error and whether it is in flight. */
export function useAction() {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run, clear: () => setError(undefined) };
}
