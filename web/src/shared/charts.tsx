// Plain SVG charts (no chart library): bars per day and lines over time. Each chart comes with
// its numbers as a table, for screen readers and for anyone who wants the exact values.
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from './data-table.tsx';

export interface Series {
  label: string;
  color: string;
  /** Values to draw, one per x label. */
  values: number[];
  /** Values as shown in the table (exact decimal strings for money); defaults to `values`. */
  shown?: string[];
}

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

function tickLabel(value: number): string {
  if (value >= 1e6) return `${+(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${+(value / 1e3).toFixed(1)}k`;
  return String(+value.toFixed(2));
}

function Axes({ max, labels }: { max: number; labels: string[] }) {
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const innerW = WIDTH - PAD.left - PAD.right;
  const every = Math.max(1, Math.ceil(labels.length / 8));
  return (
    <g aria-hidden="true">
      {[0, 0.5, 1].map((f) => {
        const y = PAD.top + innerH * (1 - f);
        return (
          <g key={f}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y} y2={y} stroke="#c9ced6" />
            <text x={PAD.left - 6} y={y + 4} textAnchor="end">
              {tickLabel(max * f)}
            </text>
          </g>
        );
      })}
      {labels.map((label, i) =>
        i % every === 0 ? (
          <text
            key={label}
            x={PAD.left + (innerW * (i + 0.5)) / labels.length}
            y={HEIGHT - 8}
            textAnchor="middle"
          >
            {label.slice(5)}
          </text>
        ) : null,
      )}
    </g>
  );
}

function ChartNumbers({ caption, labels, series }: { caption: string; labels: string[]; series: Series[] }) {
  // The chart's own words in the page's language (`charts.*` of its messages), as StatusBadge does.
  const { t } = useTranslation();
  return (
    <details>
      <summary>{t('charts.numbers', { caption, defaultValue: `${caption}: the numbers` })}</summary>
      <DataTable
        caption={caption}
        columns={[
          t('charts.day', { defaultValue: 'Day' }),
          ...series.map((s) => ({ label: s.label, numeric: true })),
        ]}
      >
        {labels.map((label, i) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            {series.map((s) => (
              <td className="number" key={s.label}>
                {s.shown?.[i] ?? s.values[i] ?? 0}
              </td>
            ))}
          </tr>
        ))}
      </DataTable>
    </details>
  );
}

function Legend({ series, extra }: { series: Series[]; extra?: ReactNode }) {
  return (
    <p className="legend">
      {series.map((s) => (
        <span key={s.label} style={{ ['--swatch' as string]: s.color }}>
          {s.label}
        </span>
      ))}
      {extra}
    </p>
  );
}

/** What every chart shares: the caption, the SVG named by caption and summary, axes, legend, data table. */
function ChartFigure(props: {
  caption: string;
  summary: string;
  labels: string[];
  series: Series[];
  max: number;
  legendExtra?: ReactNode;
  children: ReactNode;
}) {
  const { caption, labels, series } = props;
  return (
    <figure className="chart-figure">
      <figcaption>
        <strong>{caption}</strong>
      </figcaption>
      {/* On a phone the chart keeps its drawn size (axis labels stay >= 11 px) and scrolls sideways. */}
      <div className="chart-scroll" tabIndex={0} role="region" aria-label={caption}>
        <svg
          className="chart"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="img"
          aria-label={`${caption}. ${props.summary}`}
        >
          <Axes max={props.max} labels={labels} />
          {props.children}
        </svg>
      </div>
      <Legend series={series} extra={props.legendExtra} />
      <ChartNumbers caption={caption} labels={labels} series={series} />
    </figure>
  );
}

/** Bars per x label, the series side by side. */
export function BarChart({
  caption,
  labels,
  series,
  summary,
}: {
  caption: string;
  labels: string[];
  series: Series[];
  summary: string;
}) {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const slot = (WIDTH - PAD.left - PAD.right) / Math.max(1, labels.length);
  const barW = Math.max(2, (slot * 0.8) / Math.max(1, series.length));
  return (
    <ChartFigure caption={caption} summary={summary} labels={labels} series={series} max={max}>
      {series.map((s, si) =>
        s.values.map((v, i) => {
          const h = (innerH * v) / max;
          return (
            <rect
              key={`${s.label}-${labels[i]}`}
              x={PAD.left + slot * i + slot * 0.1 + barW * si}
              y={PAD.top + innerH - h}
              width={barW}
              height={h}
              fill={s.color}
            />
          );
        }),
      )}
    </ChartFigure>
  );
}

/** Lines over the x labels, with an optional dashed reference level (e.g. a budget's total). */
export function LineChart({
  caption,
  labels,
  series,
  summary,
  reference,
}: {
  caption: string;
  labels: string[];
  series: Series[];
  summary: string;
  reference?: { label: string; value: number };
}) {
  const { t } = useTranslation();
  const max = niceMax(Math.max(reference?.value ?? 0, ...series.flatMap((s) => s.values)));
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const innerW = WIDTH - PAD.left - PAD.right;
  const x = (i: number) => PAD.left + (innerW * (i + 0.5)) / Math.max(1, labels.length);
  const y = (v: number) => PAD.top + innerH * (1 - v / max);
  return (
    <ChartFigure
      caption={caption}
      summary={summary}
      labels={labels}
      series={series}
      max={max}
      legendExtra={
        reference && (
          <span style={{ ['--swatch' as string]: '#1a1a1a' }}>
            {reference.label} ({t('charts.dashed', { defaultValue: 'dashed' })})
          </span>
        )
      }
    >
      {reference && (
        <line
          x1={PAD.left}
          x2={WIDTH - PAD.right}
          y1={y(reference.value)}
          y2={y(reference.value)}
          stroke="#1a1a1a"
          strokeDasharray="6 4"
        />
      )}
      {series.map((s) => (
        <g key={s.label}>
          <polyline
            fill="none"
            stroke={s.color}
            strokeWidth={2.5}
            points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')}
          />
          {s.values.map((v, i) => (
            <circle key={labels[i]} cx={x(i)} cy={y(v)} r={3.5} fill={s.color} />
          ))}
        </g>
      ))}
    </ChartFigure>
  );
}
