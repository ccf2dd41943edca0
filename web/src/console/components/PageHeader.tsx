// The top of a console page: a link back to its list, the title with its status, and the facts
// (ids, dates) shown as a description list.
import { Fragment } from 'react';
import type { ReactNode } from 'react';
import { Link } from '../../shared/router.ts';
import { StatusBadge } from '../../shared/ui.tsx';
import { useConsoleText } from '../i18n.ts';

export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <p>
      <Link to={to}>← {children}</Link>
    </p>
  );
}

export function PageTitle({ title, status }: { title: ReactNode; status?: string }) {
  return (
    <h1>
      {title}
      {status !== undefined && (
        <>
          {' '}
          <StatusBadge status={status} />
        </>
      )}
    </h1>
  );
}

/** A section's title, in the console's language (a key under "nav"). */
export function SectionTitle({ section }: { section: string }) {
  const { t } = useConsoleText();
  return <h1>{t(`nav.${section}`)}</h1>;
}

/** Terms and their values; a `false` entry is left out. */
export type FactList = ReadonlyArray<readonly [term: string, value: ReactNode] | false>;

export function Facts({ facts }: { facts: FactList }) {
  return (
    <dl className="facts">
      {facts.map(
        (fact) =>
          fact !== false && (
            // dt and dd stay direct children of the dl: its grid lays them out in two columns.
            <Fragment key={fact[0]}>
              <dt>{fact[0]}</dt>
              <dd>{fact[1]}</dd>
            </Fragment>
          ),
      )}
    </dl>
  );
}
