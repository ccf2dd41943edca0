// Figures in cards (the dashboard's totals, a budget's amounts): a label, the value, a note.
import type { ReactNode } from 'react';

export interface Stat {
  label: string;
  value: ReactNode;
  note?: ReactNode;
  /** Tells cards apart where labels may repeat (two assets of one symbol); the label otherwise. */
  id?: string;
  /** For tests that read one figure. */
  testId?: string;
}

export function StatCards({ stats, label }: { stats: ReadonlyArray<Stat>; label?: string }) {
  return (
    <div className="cards" {...(label !== undefined && { 'aria-label': label })}>
      {stats.map((stat) => (
        <div className="card" key={stat.id ?? stat.label}>
          <div className="muted">{stat.label}</div>
          <div className="stat" {...(stat.testId !== undefined && { 'data-testid': stat.testId })}>
            {stat.value}
          </div>
          {stat.note}
        </div>
      ))}
    </div>
  );
}
