// The visibility chart, plain SVG. What it promises (and the browser test checks):
// - the y axis is fixed at 0-100%: a move from 20% to 24% looks small because it is;
// - one point per sampled day (sampleSize > 0) per subject, at its day; measured days (n >= 5) are
//   solid at `visibility`, days of 1-4 runs are hollow at the raw share mentionRuns / sampleSize
//   (the API withholds the rate there; hollow says "too few runs to call it");
// - unsampled days (sampleSize 0) have no point, no line and no band: a gap, never interpolated;
// - the brand's Wilson 95% band runs ciLow..ciHigh over each stretch of sampled days;
// - visibility change events are marked at their day, their summary in a tooltip (and focusable).

import { formatDay, pct } from './ui.js';

const NS = 'http://www.w3.org/2000/svg';

/** Colours for subjects without one (each at least 3:1 against white, as lines and points need). */
export const PALETTE = ['#2563eb', '#dc2626', '#15803d', '#9333ea', '#c2410c', '#0e7490', '#a16207', '#be185d'];

/** A subject's colour: its own when it is a hex colour, else the palette's by position. */
export function subjectColor(color, index) {
  return typeof color === 'string' && /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(color) ? color : PALETTE[index % PALETTE.length];
}

function el(name, attributes, parent) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

const round = (n) => Math.round(n * 100) / 100;

/** The share a point is drawn at: the rate when measured, the raw share under 5 runs, none when unsampled. */
export function plottedValue(point) {
  if (point.sampleSize === 0) return null;
  if (point.visibility !== null) return point.visibility;
  return (100 * point.mentionRuns) / point.sampleSize;
}

export { formatDay };

function pointLabel(name, point) {
  const when = formatDay(point.day, { year: 'numeric', month: 'short', day: 'numeric' });
  if (point.visibility !== null) {
    return `${name}, ${when}: ${pct(point.visibility)} (95% interval ${pct(point.ciLow)}–${pct(point.ciHigh)}), ${point.mentionRuns} of ${point.sampleSize} runs`;
  }
  return `${name}, ${when}: named in ${point.mentionRuns} of ${point.sampleSize} runs; too few runs for a rate (minimum 5)`;
}

/**
 * Draws the chart into `container` (replacing what was there).
 * days: every day of the range, in order. subjects: [{ id, name, color, series, band }] where
 * series holds one API point per day. events: [{ day, kind, summary, color }].
 */
export function drawChart(container, { days, subjects, events, title }) {
  const width = Math.max(280, Math.round(container.clientWidth || 640));
  const height = width < 520 ? 240 : 320;
  const margin = { top: 26, right: 14, bottom: 28, left: 42 };
  const plot = { left: margin.left, top: margin.top, width: width - margin.left - margin.right, height: height - margin.top - margin.bottom };
  const index = new Map(days.map((day, i) => [day, i]));
  const step = days.length > 1 ? plot.width / (days.length - 1) : 0;
  const x = (day) => round(plot.left + (days.length > 1 ? index.get(day) * step : plot.width / 2));
  const y = (value) => round(plot.top + ((100 - value) / 100) * plot.height);

  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-labelledby': 'chart-svg-title',
    class: 'chart-svg',
    'data-plot-left': plot.left,
    'data-plot-top': plot.top,
    'data-plot-width': plot.width,
    'data-plot-height': plot.height,
    'data-days': days.length,
    'data-from': days[0],
    'data-to': days[days.length - 1],
  });
  el('title', { id: 'chart-svg-title' }, svg).textContent = title;

  // Axes: 0-100 always, whatever the data.
  const axes = el('g', { class: 'axes', 'aria-hidden': 'true' }, svg);
  for (const tick of [0, 25, 50, 75, 100]) {
    el('line', { class: tick === 0 ? 'axis' : 'grid', x1: plot.left, x2: plot.left + plot.width, y1: y(tick), y2: y(tick) }, axes);
    el('text', { class: 'tick', x: plot.left - 6, y: y(tick), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, axes).textContent = `${tick}%`;
  }
  const every = Math.max(1, Math.ceil(64 / Math.max(step, 1)));
  for (let i = days.length - 1; i >= 0; i -= every) {
    const day = days[i];
    el('line', { class: 'axis', x1: x(day), x2: x(day), y1: plot.top + plot.height, y2: plot.top + plot.height + 4 }, axes);
    el('text', { class: 'tick', x: x(day), y: plot.top + plot.height + 18, 'text-anchor': i === 0 && days.length > 1 ? 'start' : 'middle' }, axes).textContent = formatDay(day);
  }

  // The events' day lines sit behind the data.
  const eventLines = el('g', { class: 'event-lines', 'aria-hidden': 'true' }, svg);

  subjects.forEach((subject) => {
    const group = el('g', { class: 'subject', 'data-subject-id': subject.id, 'data-subject-type': subject.type }, svg);
    const sampled = subject.series.filter((p) => p.sampleSize > 0 && index.has(p.day));
    if (subject.band) drawBand(group, subject, sampled, index, x, y, step);
    drawLines(group, subject, sampled, index, x, y);
    for (const point of sampled) {
      const value = plottedValue(point);
      const measured = point.visibility !== null;
      const circle = el(
        'circle',
        {
          class: measured ? 'point solid' : 'point hollow',
          cx: x(point.day),
          cy: y(value),
          r: measured ? 3.5 : 4,
          fill: measured ? subject.color : '#ffffff',
          stroke: measured ? '#ffffff' : subject.color,
          'stroke-width': measured ? 1 : 2,
          'data-day': point.day,
          'data-value': round(value),
          'data-visibility': measured ? point.visibility : '',
          'data-ci-low': point.ciLow,
          'data-ci-high': point.ciHigh,
          'data-sample-size': point.sampleSize,
          'data-mention-runs': point.mentionRuns,
        },
        group,
      );
      el('title', {}, circle).textContent = pointLabel(subject.name, point);
    }
  });

  // Change events: a triangle above the plot at the day (up: gained, down: dropped), several on one day side by side.
  const markers = el('g', { class: 'events' }, svg);
  const perDay = new Map();
  for (const event of events) {
    if (!index.has(event.day)) continue;
    const nth = perDay.get(event.day) ?? 0;
    perDay.set(event.day, nth + 1);
    const cx = x(event.day) + (nth % 2 === 0 ? 1 : -1) * Math.ceil(nth / 2) * 11;
    if (nth === 0) el('line', { class: 'event-line', x1: x(event.day), x2: x(event.day), y1: plot.top, y2: plot.top + plot.height }, eventLines);
    const up = event.kind === 'visibility_gained';
    const cy = margin.top - 12;
    const d = up ? `M${cx - 5} ${cy + 4} L${cx + 5} ${cy + 4} L${cx} ${cy - 5} Z` : `M${cx - 5} ${cy - 4} L${cx + 5} ${cy - 4} L${cx} ${cy + 5} Z`;
    const marker = el('g', { class: 'event', tabindex: 0, role: 'img', 'aria-label': event.summary, 'data-day': event.day, 'data-kind': event.kind }, markers);
    el('title', {}, marker).textContent = event.summary;
    el('path', { d, fill: event.color, stroke: '#ffffff', 'stroke-width': 1 }, marker);
  }

  container.replaceChildren(svg);
  return svg;
}

/** Stretches of consecutive days (by position in the range) among the sampled points. */
function stretches(points, index) {
  const out = [];
  let current = [];
  for (const point of points) {
    const previous = current[current.length - 1];
    if (previous && index.get(point.day) !== index.get(previous.day) + 1) {
      out.push(current);
      current = [];
    }
    current.push(point);
  }
  if (current.length) out.push(current);
  return out;
}

function drawBand(group, subject, sampled, index, x, y, step) {
  for (const stretch of stretches(sampled, index)) {
    const days = stretch.map((p) => p.day).join(' ');
    if (stretch.length === 1) {
      // One day alone: a short bar, so its interval still shows.
      const [p] = stretch;
      const w = Math.max(4, Math.min(10, step * 0.6));
      el('rect', { class: 'band', x: round(x(p.day) - w / 2), y: y(p.ciHigh), width: round(w), height: round(y(p.ciLow) - y(p.ciHigh)), fill: subject.color, 'data-days': days }, group);
      continue;
    }
    const top = stretch.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.day)} ${y(p.ciHigh)}`).join(' ');
    const bottom = [...stretch].reverse().map((p) => `L${x(p.day)} ${y(p.ciLow)}`).join(' ');
    el('path', { class: 'band', d: `${top} ${bottom} Z`, fill: subject.color, 'data-days': days }, group);
  }
}

/** Solid between consecutive measured days, dashed where a day of 1-4 runs is an end; nothing across a gap. */
function drawLines(group, subject, sampled, index, x, y) {
  let solid = '';
  let dashed = '';
  for (let i = 1; i < sampled.length; i++) {
    const a = sampled[i - 1];
    const b = sampled[i];
    if (index.get(b.day) !== index.get(a.day) + 1) continue;
    const segment = `M${x(a.day)} ${y(plottedValue(a))} L${x(b.day)} ${y(plottedValue(b))} `;
    if (a.visibility !== null && b.visibility !== null) solid += segment;
    else dashed += segment;
  }
  if (solid) el('path', { class: 'line', d: solid.trim(), stroke: subject.color }, group);
  if (dashed) el('path', { class: 'line low-n', d: dashed.trim(), stroke: subject.color }, group);
}
