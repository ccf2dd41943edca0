// Tables of the pages: a labelled region, a caption, header cells from a column list, and the
// caller's rows. The console lists and the charts' numbers use it. Each body cell is given its
// column's name (data-label), so a stylesheet may show rows as stacked cards on a phone (the console
// does, below 40rem) instead of a table that pans sideways.
import { useEffect, useRef } from 'react';
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
  const table = useRef<HTMLTableElement>(null);
  // Rows come and go without this component rendering again (a row opens its history): label the
  // cells now and after every change of the table's content, the header's too (another language).
  useEffect(() => {
    const element = table.current;
    if (!element) return;
    const label = () => {
      const names = [...(element.tHead?.rows[0]?.cells ?? [])].map((cell) => cell.textContent ?? '');
      for (const body of element.tBodies) {
        for (const row of body.rows) {
          let column = 0;
          for (const cell of row.cells) {
            const name = cell.colSpan === 1 ? names[column] : undefined;
            if (name && cell.dataset.label !== name) cell.dataset.label = name;
            column += cell.colSpan;
          }
        }
      }
    };
    label();
    const observer = new MutationObserver(label);
    observer.observe(element, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div
      className="table-wrap"
      tabIndex={0}
      role="region"
      aria-label="Table, scrolls sideways on small screens"
    >
      <table ref={table}>
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
