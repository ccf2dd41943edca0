// A list's filters: the chosen values go into the page's query string (so a filtered list can be
// linked and reloaded), empty ones left out. Applying the filters already shown asks again
// (`reload`), so a list an operator re-submits shows what changed since.
import type { FormEvent, ReactNode } from 'react';
import { query } from '../../shared/api.ts';
import { navigate } from '../../shared/router.ts';
import { field } from '../forms.ts';

export function FilterForm({
  label,
  path,
  names,
  submit,
  moreActions,
  reload,
  children,
}: {
  /** The form's accessible name, e.g. "Filter claims". */
  label: string;
  /** The page the filters apply to. */
  path: string;
  /** The fields that become query parameters. */
  names: readonly string[];
  submit: ReactNode;
  moreActions?: ReactNode;
  /** Loads the list again (the filters in the address may not have changed). */
  reload?: () => void;
  children: ReactNode;
}) {
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    navigate(`${path}${query(Object.fromEntries(names.map((name) => [name, field(form, name)])))}`, {
      replace: true,
    });
    // Same filters as before: the address does not change, so ask again (one request either way).
    reload?.();
  };
  return (
    <form onSubmit={apply} aria-label={label} className="filters">
      {children}
      <div className="actions">
        {submit}
        {moreActions}
      </div>
    </form>
  );
}
