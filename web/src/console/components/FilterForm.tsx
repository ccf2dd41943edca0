// A list's filters: the chosen values go into the page's query string (so a filtered list can be
// linked and reloaded), empty ones left out. Applying the filters already shown asks again
// (`reload`), so a list an operator re-submits shows what changed since; "clear" shows it unfiltered.
import type { FormEvent, ReactNode } from 'react';
import { query } from '../../shared/api.ts';
import { navigate, useLocation } from '../../shared/router.ts';
import { field } from '../forms.ts';

/** The page's filters as its address has them ('' for one not given), and the query string itself. */
export function useQueryFilters<const Name extends string>(
  names: readonly Name[],
): { filter: Record<Name, string>; search: URLSearchParams } {
  const { search } = useLocation();
  const filter = Object.fromEntries(names.map((name) => [name, search.get(name) ?? ''])) as Record<
    Name,
    string
  >;
  return { filter, search };
}

export function FilterForm({
  label,
  path,
  names,
  submit,
  clear,
  reload,
  children,
}: {
  /** The form's accessible name, e.g. "Filter claims". */
  label: string;
  /** The page the filters apply to. */
  path: string;
  /** The fields that become query parameters. */
  names: readonly string[];
  /** The submit button's words. */
  submit: string;
  /** A button that shows the list without filters, with these words. */
  clear?: string;
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
        <button type="submit">{submit}</button>
        {clear !== undefined && (
          <button type="button" className="secondary" onClick={() => navigate(path, { replace: true })}>
            {clear}
          </button>
        )}
      </div>
    </form>
  );
}
