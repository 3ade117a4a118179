/**
 * Query parameters that say how a visitor arrived, never which page it is: analytics campaign tags
 * (`utm_*`), ad click ids, mail-campaign ids and referral tags engines append (ChatGPT adds
 * `utm_source=chatgpt.com`). Everything else in the query is kept, in its order.
 */
const TRACKING = new Set([
  'gclid', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'yclid', 'twclid', 'ttclid', 'li_fat_id',
  'mc_cid', 'mc_eid', 'igshid', '_ga', '_gl', '_hsenc', '_hsmi', 'mkt_tok', 'ref', 'ref_src', 'ref_url', 'srsltid', 'spm',
]);

export function isTrackingParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING.has(lower);
}

/**
 * The identity of a cited page: the same page cited as `...?utm_source=chatgpt.com`, with a
 * `#fragment`, with an upper-case host, a default port or a trailing slash is one URL. Lower-case
 * scheme and host (the URL parser does both, and drops default ports), no fragment, no tracking
 * parameters, no trailing slash after a path (the root keeps its `/`). Returns undefined for what
 * is not an absolute http(s) URL.
 */
export function normalizeUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return undefined;
  url.hash = '';
  url.username = '';
  url.password = '';
  if (url.search !== '') {
    const kept = [...url.searchParams].filter(([name]) => !isTrackingParameter(name));
    const before = url.search.slice(1).split('&').filter((p) => p !== '');
    // Rebuilt only when something goes, so a kept query keeps its exact encoding.
    if (kept.length !== before.length) url.search = new URLSearchParams(kept).toString();
    else if (before.length === 0) url.search = '';
  }
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.href;
}
