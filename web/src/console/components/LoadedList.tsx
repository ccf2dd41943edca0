// A list answer ({items}) on its way: the loader, the error, a sentence when it is empty, else the
// caller's rendering of the items.
import type { ReactNode } from 'react';
import { LoadState } from '../../shared/ui.tsx';
import type { Loaded } from '../../shared/ui.tsx';

export function LoadedList<T>({
  state,
  label,
  empty,
  children,
}: {
  state: Loaded<{ items: T[] }>;
  /** What is loading, for "Loading …". */
  label: string;
  /** Shown instead of the list when it has no items; a string becomes a paragraph. */
  empty: ReactNode;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <LoadState state={state} label={label}>
      {(data) =>
        data.items.length > 0 ? children(data.items) : typeof empty === 'string' ? <p>{empty}</p> : empty
      }
    </LoadState>
  );
}
