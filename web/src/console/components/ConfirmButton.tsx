// A button for a step that cannot be undone (revoke a key, run a draw): it asks first.
import type { ReactNode } from 'react';

export function ConfirmButton({
  question,
  onConfirmed,
  disabled,
  className,
  children,
}: {
  /** Asked in the browser's own dialog; nothing happens unless the operator agrees. */
  question: string;
  onConfirmed: () => void;
  disabled?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={className}
      disabled={disabled}
      onClick={() => {
        if (window.confirm(question)) onConfirmed();
      }}
    >
      {children}
    </button>
  );
}
