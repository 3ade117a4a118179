// Small DOM and formatting helpers the pages share. Text always goes in as text (textContent),
// never as markup: API values (answers, URLs, names) cannot inject anything.

/**
 * An element: `h('td', { class: 'num' }, '12')`. Attributes whose value is null, undefined or
 * false are left out; `true` sets an empty attribute; children are nodes or strings (as text).
 */
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export const $ = (id) => document.getElementById(id);

/** A table cell; `num` cells align right in tabular figures. */
export function td(text, className, title) {
  return h('td', { class: className, title }, text);
}

export const numCell = (text, title) => td(text, 'num', title);

const integer = new Intl.NumberFormat('en');
export const count = (n) => integer.format(n);

export const fixed = (n, digits = 2) => (n === null || n === undefined ? '—' : n.toFixed(digits));
export const pct = (n, digits = 2) => (n === null || n === undefined ? '—' : `${n.toFixed(digits)}%`);
/** "12.5% (3.7–37.9%)": a share with its Wilson 95% interval. */
export const shareWithInterval = (s) => `${pct(s.share)} (${fixed(s.ciLow)}–${pct(s.ciHigh)})`;

/** Dollars: cents, or up to four decimals below ten cents ($0.015 a check). */
export const usd = (n) => (n === null || n === undefined ? '—' : `$${n !== 0 && Math.abs(n) < 0.1 ? n.toFixed(4).replace(/0{1,2}$/, '') : n.toFixed(2)}`);

export function formatDay(day, options = { month: 'short', day: 'numeric' }) {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en', { ...options, timeZone: 'UTC' });
}

export const longDay = (day) => formatDay(day, { year: 'numeric', month: 'short', day: 'numeric' });

/** A timestamp in UTC (the days the API counts are UTC days). */
export function formatTime(iso) {
  return `${new Date(iso).toLocaleString('en', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' })} UTC`;
}

export function timeEl(iso, text) {
  return h('time', { datetime: iso }, text);
}

/** A verification status or run status as a labelled badge (the word is the meaning, the colour a help). */
export function badge(status, text = status.replace(/_/g, ' ')) {
  return h('span', { class: `badge badge-${status.replace(/[^a-z_]/g, '')}` }, text);
}

/** A paragraph or a row saying there is nothing to show. */
export function emptyRow(columns, text) {
  return h('tr', {}, h('td', { colspan: columns, class: 'muted empty-row' }, text));
}

export function option(value, label) {
  return h('option', { value }, label);
}

/** Fills a select's choices after its first ("all") option; a value from the address that is not offered stays selectable. */
export function fillSelect(select, choices, value) {
  const all = select.options[0];
  select.replaceChildren(all, ...choices.map((c) => option(c.value, c.label)));
  if (value && !choices.some((c) => c.value === value)) select.append(option(value, value));
  select.value = value;
}

/** A link to a page elsewhere: no referrer, no opener, and it says it leaves. */
export function outLink(url, text = url) {
  const safe = /^https?:\/\//i.test(url);
  if (!safe) return h('span', { class: 'url' }, text);
  return h('a', { href: url, rel: 'noreferrer noopener nofollow', target: '_blank', class: 'url' }, text);
}

/** A swatch of a subject's colour (SVG presentation attributes: the CSP allows no style attribute). */
export function swatch(color, hollow = false) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 12 12');
  svg.setAttribute('class', 'swatch');
  svg.setAttribute('aria-hidden', 'true');
  const dot = document.createElementNS(NS, 'circle');
  for (const [k, v] of Object.entries({ cx: 6, cy: 6, r: hollow ? 4 : 5, fill: hollow ? '#ffffff' : color, stroke: color, 'stroke-width': 2 })) dot.setAttribute(k, String(v));
  svg.append(dot);
  return svg;
}
