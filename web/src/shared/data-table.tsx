// Tables of the pages: a sideways-scrolling, labelled region (phones), a caption, header cells from
// a column list, and the caller's rows. The console lists and the charts' numbers use it.
import type { ReactNode } from 'react';

export interface Column {
  label: string;
  /** Right-aligned figures (amounts, counts). */
  numeric?: boolean;
}

export function DataTable({
  caption,
  showCaption = false,
  columns,
  children,
}: {
  caption: ReactNode;
  /** Captions are for screen readers unless they say something the page does not. */
  showCaption?: boolean;
  /** `false` leaves a column out (e.g. actions for a read-only role). */
  columns: ReadonlyArray<Column | string | false>;
  children: ReactNode;
}) {
  return (
    <div
      className="table-wrap"
      tabIndex={0}
      role="region"
      aria-label="Table, scrolls sideways on small screens"
    >
      <table>
        <caption className={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => {
              if (column === false) return null;
              const { label, numeric } =
                typeof column === 'string' ? { label: column, numeric: false } : column;
              return (
                <th key={label} scope="col" className={numeric ? 'number' : undefined}>
                  {label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
