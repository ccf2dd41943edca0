// A list's filters: the chosen values go into the page's query string (so a filtered list can be
// linked and reloaded), empty ones left out.
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
  children: ReactNode;
}) {
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    navigate(`${path}${query(Object.fromEntries(names.map((name) => [name, field(form, name)])))}`, {
      replace: true,
    });
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
