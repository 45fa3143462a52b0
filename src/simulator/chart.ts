// SVG line charts with d3-scale (domains, nice ticks) and d3-shape (paths).
// d3 is a devDependency: the build bundles it into dist/simulator/chart.js,
// so `pollite` keeps zero runtime dependencies.
import { scaleLinear, scaleLog } from 'd3-scale';
import { line } from 'd3-shape';

/** One line of a chart. */
export interface ChartSeries {
  /** Its name in the legend. */
  name: string;
  /** Its points, in the order drawn. */
  points: Array<[x: number, y: number]>;
}

/** One panel: a titled pair of labelled axes with a line per series. */
export interface ChartPanel {
  /** The panel's title. */
  title: string;
  /** The horizontal axis's label. */
  xLabel: string;
  /** The vertical axis's label. */
  yLabel: string;
  /** One line per series, each in its own colour. */
  series: ChartSeries[];
  /** The vertical axis's scale. @default 'linear' */
  yScale?: 'linear' | 'log';
  /** Vertical marks, e.g. an outage: `[from, to]` shaded, labelled. */
  spans?: Array<{
    /** Where the span starts, in x units. */
    from: number;
    /** Where it ends, in x units. */
    to: number;
    /** What it marks. */
    label: string;
  }>;
}

/** Options of {@link renderChart}. */
export interface ChartOptions {
  /** Width of one panel, px. @default 720 */
  width?: number;
  /** Height of one panel, px. @default 360 */
  height?: number;
  /** Lines of small print under the panels. @default [] */
  notes?: string[];
}

// Okabe-Ito: told apart by colour-blind readers too.
const COLORS = ['#D55E00', '#0072B2', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];
// The legend sits in the right margin, beside the plot, so it never hides a line.
const LEGEND = 150;
const MARGIN = { top: 40, right: 20 + LEGEND, bottom: 48, left: 64 };

const escapeXml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const round = (n: number): number => Math.round(n * 10) / 10;

const formatTick = (value: number): string =>
  Math.abs(value) >= 10_000 ? `${round(value / 1000)}k` : String(round(value));

function extent(values: number[], fallback: [number, number]): [number, number] {
  if (values.length === 0) return fallback;
  let [min, max] = [Infinity, -Infinity];
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min === max ? [min, min + 1] : [min, max];
}

function panelSvg(panel: ChartPanel, width: number, height: number): string {
  const all = panel.series.flatMap((s) => s.points);
  const [x0, x1] = extent(all.map(([x]) => x), [0, 1]);
  const log = panel.yScale === 'log';
  const ys = all.map(([, y]) => y).filter((y) => (log ? y > 0 : true));
  const [yMin, yMax] = extent(ys, [0, 1]);
  const x = scaleLinear().domain([x0, x1]).range([MARGIN.left, width - MARGIN.right]).nice();
  const y = (log ? scaleLog().domain([yMin, yMax]) : scaleLinear().domain([Math.min(0, yMin), yMax]))
    .range([height - MARGIN.bottom, MARGIN.top])
    .nice();
  const [left, right] = x.range() as [number, number];
  const [bottom, top] = y.range() as [number, number];
  const parts: string[] = [];

  for (const span of panel.spans ?? []) {
    const from = x(span.from);
    const to = x(span.to);
    parts.push(
      `<rect x="${round(from)}" y="${top}" width="${round(to - from)}" height="${bottom - top}" fill="#000" fill-opacity="0.07"/>`,
      `<text x="${round((from + to) / 2)}" y="${top + 14}" text-anchor="middle" font-size="11" fill="#555">${escapeXml(span.label)}</text>`,
    );
  }
  const yTicks = log ? y.ticks(6).filter((t) => /^[125]/.test(String(t))) : y.ticks(6);
  for (const tick of yTicks) {
    const ty = round(y(tick));
    parts.push(
      `<line x1="${left}" x2="${right}" y1="${ty}" y2="${ty}" stroke="#e5e5e5"/>`,
      `<text x="${left - 6}" y="${ty + 4}" text-anchor="end" font-size="11">${formatTick(tick)}</text>`,
    );
  }
  for (const tick of x.ticks(8)) {
    const tx = round(x(tick));
    parts.push(
      `<line x1="${tx}" x2="${tx}" y1="${bottom}" y2="${bottom + 5}" stroke="#333"/>`,
      `<text x="${tx}" y="${bottom + 18}" text-anchor="middle" font-size="11">${formatTick(tick)}</text>`,
    );
  }
  parts.push(
    `<line x1="${left}" x2="${right}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${bottom}" stroke="#333"/>`,
    `<text x="${(left + right) / 2}" y="${height - 10}" text-anchor="middle" font-size="12">${escapeXml(panel.xLabel)}</text>`,
    `<text transform="translate(16 ${(top + bottom) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(panel.yLabel)}</text>`,
    `<text x="${left}" y="22" font-size="14" font-weight="bold">${escapeXml(panel.title)}</text>`,
  );
  const path = line<[number, number]>()
    .x(([px]) => round(x(px)))
    .y(([, py]) => round(y(log ? Math.max(py, yMin) : py)));
  panel.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length]!;
    parts.push(`<path d="${path(series.points) ?? ''}" fill="none" stroke="${color}" stroke-width="1.75"/>`);
  });
  panel.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length]!;
    const lx = right + 16;
    const ly = top + 6 + i * 18;
    parts.push(
      `<line x1="${lx}" x2="${lx + 20}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="3"/>`,
      `<text x="${lx + 26}" y="${ly + 4}" font-size="12">${escapeXml(series.name)}</text>`,
    );
  });
  return parts.join('\n');
}

/**
 * Renders panels side by side as one standalone SVG document, axes
 * labelled, one coloured line per series with a legend.
 */
export function renderChart(panels: ChartPanel[], options: ChartOptions = {}): string {
  const width = options.width ?? 720;
  const height = options.height ?? 360;
  const notes = options.notes ?? [];
  const total = { width: width * panels.length, height: height + notes.length * 16 + (notes.length ? 8 : 0) };
  const body = panels
    .map((panel, i) => `<g transform="translate(${i * width} 0)">\n${panelSvg(panel, width, height)}\n</g>`)
    .join('\n');
  const small = notes
    .map((note, i) => `<text x="${MARGIN.left}" y="${height + 12 + i * 16}" font-size="11" fill="#555">${escapeXml(note)}</text>`)
    .join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total.width}" height="${total.height}" viewBox="0 0 ${total.width} ${total.height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    body,
    small,
    '</svg>',
    '',
  ].join('\n');
}
