// The console's write forms: a heading or label naming the form, the failure in words, an optional
// confirmation, the fields, and a submit button that is disabled while the request is in flight.
import { useId, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { ErrorNotice, useAction } from '../../shared/ui.tsx';

export type Action = ReturnType<typeof useAction>;

export interface ActionFormProps {
  /** A visible heading that names the form (h2 unless `headingLevel` says otherwise)... */
  heading?: string;
  headingLevel?: 2 | 3;
  /** ...or, without a heading, its accessible name. */
  label?: string;
  /** The title of the error notice, e.g. "The partner was not created". */
  failure: string;
  /** The submit button's text. */
  submit: string;
  submitClassName?: string;
  /** Receives the form's fields (disabled ones are not among them, so locked values are never sent). */
  onSubmit: (form: FormData) => Promise<void>;
  /** Empty the fields after a success (create forms that stay on the page). */
  resetOnSuccess?: boolean;
  /** A confirmation shown after a success, until the next submit (e.g. "Saved."). */
  confirmation?: string;
  /** Fields that stay whether or not the form is `unavailable` (a choice that decides what is available). */
  leading?: ReactNode;
  /** The fields only, without the button: what a role that may not write sees. */
  readOnly?: boolean;
  /** Shown instead of the fields and the button while the form cannot be used (nothing to choose from). */
  unavailable?: ReactNode;
  /** Buttons after the submit button. */
  moreActions?: ReactNode;
  /** Share the in-flight and error state with other buttons of the same thing. */
  action?: Action;
  /** The error is shown elsewhere (by the owner of a shared `action`). */
  hideError?: boolean;
  className?: string;
  children?: ReactNode;
}

export function ActionForm(props: ActionFormProps) {
  const own = useAction();
  const action = props.action ?? own;
  const [confirmed, setConfirmed] = useState(false);
  const headingId = useId();
  const Heading = props.headingLevel === 3 ? 'h3' : 'h2';
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    setConfirmed(false);
    const done = await action.run(() => props.onSubmit(new FormData(formElement)));
    if (!done) return;
    if (props.resetOnSuccess) formElement.reset();
    if (props.confirmation !== undefined) setConfirmed(true);
  };
  return (
    <form
      onSubmit={(e) => void submit(e)}
      className={props.className}
      {...(props.heading !== undefined ? { 'aria-labelledby': headingId } : { 'aria-label': props.label })}
    >
      {props.heading !== undefined && <Heading id={headingId}>{props.heading}</Heading>}
      {!props.hideError && <ErrorNotice error={action.error} title={props.failure} />}
      {confirmed && (
        <p className="notice ok" role="status">
          {props.confirmation}
        </p>
      )}
      {props.leading}
      {props.unavailable ?? (
        <>
          {props.children}
          {!props.readOnly && (
            <div className="actions">
              <button type="submit" className={props.submitClassName} disabled={action.busy}>
                {props.submit}
              </button>
              {props.moreActions}
            </div>
          )}
        </>
      )}
    </form>
  );
}
