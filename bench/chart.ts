// A horizontal bar chart of each scenario's ratio to its ceiling, with its target marked: plain SVG.

interface ChartRow {
  scenario: string;
  ratio: number;
  target: string;
  pass: boolean;
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderChart(rows: readonly ChartRow[]): string {
  const width = 900;
  const left = 330;
  const barHeight = 26;
  const gap = 14;
  const top = 40;
  const height = top + rows.length * (barHeight + gap) + 30;
  const max = Math.max(2.5, ...rows.map((r) => r.ratio)) * 1.1;
  // Room on the right for the longest label (ratio and target).
  const x = (v: number) => left + (v / max) * (width - left - 200);
  const bars = rows
    .map((r, i) => {
      const y = top + i * (barHeight + gap);
      const target = Number(/([\d.]+)x/.exec(r.target)?.[1] ?? NaN);
      const marker = Number.isFinite(target)
        ? `<line x1="${x(target)}" x2="${x(target)}" y1="${y - 4}" y2="${y + barHeight + 4}" stroke="#222" stroke-width="2" stroke-dasharray="4 2"/>`
        : '';
      return `<text x="${left - 8}" y="${y + barHeight / 2 + 5}" text-anchor="end" font-size="13">${escape(r.scenario)}</text>
<rect x="${left}" y="${y}" width="${Math.max(1, x(r.ratio) - left)}" height="${barHeight}" fill="${r.pass ? '#2e7d32' : '#c62828'}"/>
<text x="${x(r.ratio) + 6}" y="${y + barHeight / 2 + 5}" font-size="13">${r.ratio.toFixed(2)}x (${escape(r.target)})</text>${marker}`;
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="24" font-size="15" font-weight="600">Ratio to ceiling (growth: p50 ratio, lower is better); dashed line = target</text>
${bars}
</svg>
`;
}
