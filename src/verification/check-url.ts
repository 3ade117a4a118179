import { OutboundError, type Outbound, type OutboundFailure, type OutboundResponse } from '../outbound/outbound.ts';
import type { RobotsCache } from './robots.ts';
import { probePath, resemblesProbe, saysNotFound, visibleWords, type Probe, type ProbeCache } from './soft-404.ts';

/** What one check of a URL saw. The status rules (status-rules.ts) turn it into a status. */
export type Observation =
  /** 2xx at the end, not a soft 404. */
  | { kind: 'ok'; status: number; finalUrl: string; permanentRedirect: boolean; toHome: boolean }
  /**
   * 404, 410, a soft 404, or a deep path redirected to the home page. ('moved' is never produced:
   * a permanent redirect to another page that answers is `ok` with permanentRedirect, for the rules.)
   */
  | { kind: 'gone'; status: number; finalUrl: string; why: 'not_found' | 'gone' | 'soft_404' | 'redirect_home' | 'moved' }
  /** NXDOMAIN for the cited host. */
  | { kind: 'no_host'; why: string }
  /** 5xx (status set), TLS, connection refused/reset, redirect loop or more than 5 redirects, timeout. */
  | { kind: 'failed'; why: string; status?: number }
  /** 401, 403, 429, robots.txt disallows (or answers 5xx), DNS temporary failure, a non-public address, another status. */
  | { kind: 'inconclusive'; why: string; status?: number };

/** At most `perHost` tasks for one host run at once; the rest wait their turn in order. */
export interface HostLimiter {
  run<T>(host: string, task: () => Promise<T>): Promise<T>;
}

export function createHostLimiter(perHost = 2): HostLimiter {
  const hosts = new Map<string, { active: number; waiting: (() => void)[] }>();
  return {
    async run(host, task) {
      const key = host.toLowerCase();
      let slot = hosts.get(key);
      if (!slot) hosts.set(key, (slot = { active: 0, waiting: [] }));
      const own = slot;
      // A finishing task hands its place straight to the next in line, so `active` counts places held.
      if (own.active >= perHost) await new Promise<void>((resolve) => own.waiting.push(resolve));
      else own.active++;
      try {
        return await task();
      } finally {
        const next = own.waiting.shift();
        if (next) next();
        else if (--own.active === 0) hosts.delete(key);
      }
    },
  };
}

export interface CheckerOptions {
  /** The guarded client (createOutbound with the service's user agent and SIGHTLINE_RESOLVE). */
  outbound: Outbound;
  /** Shared by all checks of the process (createRobotsCache). */
  robots: RobotsCache;
  /** Shared by the checks of a batch or longer (createProbeCache). */
  probes: ProbeCache;
  /** Shared by all checks of the process (createHostLimiter): every page and probe request goes through it. */
  limiter: HostLimiter;
  /** Per request (robots.txt, HEAD, GET, probe each), redirects included. Default 10 s. */
  timeoutMs?: number;
  /** Bytes of a page read. Default 256 KiB. */
  maxBytes?: number;
}

const MAX_REDIRECTS = 5;
const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * Looks at one cited URL, politely: robots.txt first (a disallowed page is never fetched), then
 * HEAD, then GET where HEAD cannot settle it, then for an HTML page the soft-404 tests. Never throws
 * for anything a URL or its server can do: every such outcome is an Observation (a bug still throws).
 */
export async function checkUrl(raw: string, options: CheckerOptions): Promise<Observation> {
  let target: URL;
  try {
    target = new URL(raw);
  } catch {
    return { kind: 'inconclusive', why: 'bad_url' };
  }
  // Credentials are never sent on a citation's behalf.
  if ((target.protocol !== 'http:' && target.protocol !== 'https:') || target.username !== '' || target.password !== '') return { kind: 'inconclusive', why: 'bad_url' };
  target.hash = '';

  const robots = await options.robots.decide(target.href);
  if (robots.kind === 'disallowed') return { kind: 'inconclusive', why: 'robots' };
  if (robots.kind === 'unavailable') return { kind: 'inconclusive', why: 'robots_unavailable', status: robots.status };
  // No answer from the host for robots.txt is no answer for the page either: the page is not tried
  // (complete disallow), but what the host did is what a page request would have met.
  if (robots.kind === 'unreachable') return fromFailure(robots.failure, true);

  const head = await attempt(() => fetchPage(target, 'HEAD', options));
  if (head instanceof OutboundError) return fromFailure(head.failure, false);
  if (isSuccess(head.status) && !isHtml(head.headers['content-type'])) return judge(target, head, options);

  // GET decides whenever HEAD is not a 2xx: servers get HEAD wrong often enough (405, 501, 403, 400,
  // and 404/410 too, which some give HEAD alone: lychee#1327, urlhealth) that a HEAD alone never
  // calls a page gone. An HTML 2xx needs its body for the soft-404 tests anyway.
  let get = await attempt(() => fetchPage(target, 'GET', options));
  // An empty resource cannot satisfy `Range: bytes=0-...`: ask again without it.
  if (!(get instanceof OutboundError) && get.status === 416) get = await attempt(() => fetchPage(target, 'GET', options, false));
  if (get instanceof OutboundError) return fromFailure(get.failure, false);
  return judge(target, get, options);
}

function fetchPage(url: URL, method: 'HEAD' | 'GET', options: CheckerOptions, range = true): Promise<OutboundResponse> {
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
  if (method === 'GET' && range) headers.range = `bytes=0-${maxBytes - 1}`;
  return options.limiter.run(url.hostname, () =>
    options.outbound.request(url.href, { method, headers, timeoutMs: options.timeoutMs ?? 10_000, maxBytes, maxRedirects: MAX_REDIRECTS }),
  );
}

/** The response, or the OutboundError that stands for what the URL did; anything else is a bug and throws. */
async function attempt(request: () => Promise<OutboundResponse>): Promise<OutboundResponse | OutboundError> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof OutboundError) return error;
    throw error;
  }
}

/**
 * `cited` says whether the failure was met at the cited host itself (its robots.txt). After its
 * robots.txt answered, "no such host" can only come from where a redirect pointed (or a name
 * that vanished since robots.txt was cached): the cited host exists, the page cannot be reached.
 */
function fromFailure(failure: OutboundFailure, cited: boolean): Observation {
  switch (failure) {
    case 'dns_nxdomain':
      return cited ? { kind: 'no_host', why: 'nxdomain' } : { kind: 'failed', why: 'redirect_to_nxdomain' };
    case 'too_many_redirects':
      return { kind: 'failed', why: 'redirect_loop' };
    case 'timeout':
    case 'refused':
    case 'tls':
    case 'network':
      return { kind: 'failed', why: failure };
    // Never fetched (a non-public address, at the start or along a redirect), a name that could not
    // be resolved now, or a redirect to something not http(s): nothing is known of the page.
    case 'blocked_address':
    case 'dns_temporary':
    case 'bad_url':
      return { kind: 'inconclusive', why: failure };
  }
}

async function judge(cited: URL, response: OutboundResponse, options: CheckerOptions): Promise<Observation> {
  const { status, url: finalUrl } = response;
  if (status === 404) return { kind: 'gone', status, finalUrl, why: 'not_found' };
  if (status === 410) return { kind: 'gone', status, finalUrl, why: 'gone' };
  if (status >= 500) return { kind: 'failed', why: `http_${status}`, status };
  if (status === 401) return { kind: 'inconclusive', why: 'auth_required', status };
  if (status === 403) return { kind: 'inconclusive', why: 'forbidden', status };
  if (status === 429) return { kind: 'inconclusive', why: 'rate_limited', status };
  if (!isSuccess(status)) return { kind: 'inconclusive', why: 'unexpected_status', status };

  const permanentRedirect = response.redirects.some((hop) => hop.status === 301 || hop.status === 308);
  const final = new URL(finalUrl);
  const toHome = response.redirects.length > 0 && isDeep(cited) && isHome(final);
  if (toHome) return { kind: 'gone', status, finalUrl, why: 'redirect_home' };
  const ok: Observation = { kind: 'ok', status, finalUrl, permanentRedirect, toHome };
  if (!isHtml(response.headers['content-type'])) return ok;

  const html = response.body.toString('utf8');
  if (saysNotFound(html)) return { kind: 'gone', status, finalUrl, why: 'soft_404' };
  const probe = await options.probes.get(final.origin, () => probeSite(final.origin, options));
  if (resemblesProbe({ html, finalUrl, redirected: response.redirects.length > 0 }, probe)) return { kind: 'gone', status, finalUrl, why: 'soft_404' };
  return ok;
}

/** What the site answers for a path that cannot exist; undefined when that says nothing now. */
async function probeSite(origin: string, options: CheckerOptions): Promise<Probe | undefined> {
  const url = new URL(probePath(), origin);
  if ((await options.robots.decide(url.href)).kind !== 'allowed') return undefined;
  const response = await attempt(() => fetchPage(url, 'GET', options));
  if (response instanceof OutboundError) return undefined;
  if (isSuccess(response.status)) {
    return { kind: 'answers', words: visibleWords(response.body.toString('utf8')), finalUrl: response.url, redirected: response.redirects.length > 0 };
  }
  // A 5xx or 429 for the probe is the server's trouble, not its answer about missing pages.
  if (response.status === 429 || response.status >= 500) return undefined;
  return { kind: 'honest', status: response.status };
}

/** No content type is taken as HTML (servers omit it); anything named otherwise (PDF, JSON, images) is not. */
function isHtml(contentType: string | undefined): boolean {
  return contentType === undefined || /^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

/** The root of a site: `/` or `/index.html` and kin. */
const ROOT_PATH = /^\/(?:index\.(?:html?|php|aspx?))?$/i;
/** Where a site sends what it has lost: its root, `/home`, or a language root such as `/en/` or `/en-us`. */
const HOME_PATH = /^\/(?:index\.(?:html?|php|aspx?)|home\/?)?$/i;
const LANGUAGE_ROOT = /^\/([a-z]{2})(?:[-_][a-z]{2,4})?\/?$/i;
/** Names languages by their ISO 639-1 codes; undefined for two letters that are none (`/ok`, `/go`, `/ai`). */
const LANGUAGES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

function isHome(url: URL): boolean {
  if (url.search !== '') return false;
  const language = LANGUAGE_ROOT.exec(url.pathname)?.[1];
  return HOME_PATH.test(url.pathname) || (language !== undefined && LANGUAGES.of(language.toLowerCase()) !== undefined);
}

/** A page below the root: another path (`/ai` included: only where a redirect lands is read as a language root), or a query (`/?p=123`). */
function isDeep(url: URL): boolean {
  return !ROOT_PATH.test(url.pathname) || url.search !== '';
}
