import { isIP } from 'node:net';

/** One access-log line reduced to what ingest classifies on (see LOG_FORMATS.md for what is accepted). */
export interface LogEntry {
  format: 'combined' | 'caddy';
  /** Request time, when the line has one that parses. */
  at: Date | undefined;
  method: string | undefined;
  /** Host the request was for, when the line says (vhost prefix in combined, request.host in Caddy). */
  host: string | undefined;
  /** Path and query as requested (the request-target), e.g. "/pricing?utm_source=chatgpt.com". */
  target: string | undefined;
  status: number | undefined;
  /** '' when absent or '-'. */
  userAgent: string;
  /** '' when absent or '-'. */
  referrer: string;
  clientIp: string | undefined;
}

/**
 * Parses one line of an access log in either accepted grammar: a Caddy JSON access line (bare, or
 * behind a docker/syslog-style prefix, or in Caddy's console encoding), or Apache/Nginx common or
 * combined format (optionally with a vhost, a `name | ` prefix and trailing fields).
 *
 * Returns undefined for anything else: runtime (non-access) log lines, error logs, other access-log
 * layouts, truncated lines. Never throws, and runs in time linear in the line's length: the structure
 * is found by index scanning; the only regular expressions are anchored and without nested quantifiers.
 */
export function parseLogLine(line: string): LogEntry | undefined {
  const s = line.trim();
  if (s.length === 0) return undefined;
  if (s.charCodeAt(0) === BRACE) return parseCaddy(s, undefined, undefined);
  return parseCombined(s) ?? parsePrefixedCaddy(s);
}

const BRACE = 0x7b; // {
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const SPACE = 0x20;

// ---------------------------------------------------------------------------------------------
// Apache/Nginx common and combined format
//
//   [prefix | ] [vhost[:port] ] client ident user [dd/Mon/yyyy:HH:MM:SS +zzzz] "request" status size
//   [ "referer" ["user-agent"] [anything...]]
//
// The bracketed time is the anchor: a line whose first `[` does not open a CLF time is not this
// grammar (nginx/Apache error logs, nginx-proxy-manager and panel formats all fail here).

const HOST_TOKEN = /^[A-Za-z0-9_.-]+(?::\d{1,5})?$/;
const METHOD = /^[A-Z][A-Z0-9_-]{0,31}$/;
const STATUS = /^\d{1,3}$/;
const SIZE = /^(?:\d+|-)$/;

function parseCombined(s: string): LogEntry | undefined {
  const open = s.indexOf('[');
  if (open < 1 || s.charCodeAt(open - 1) !== SPACE) return undefined;
  let head = s.slice(0, open);
  // A docker-compose (`proxy  | `) or log-viewer (`2025-07-23 10:27:38 | `) prefix: drop through its bar.
  const bar = head.lastIndexOf('| ');
  if (bar >= 0) head = head.slice(bar + 2);
  const tokens = head.split(' ').filter((t) => t.length > 0);
  // The last two head tokens are ident and user (or, with bunkerweb, a request id and user).
  let vhost: string | undefined;
  let client: string;
  if (tokens.length === 3) {
    client = tokens[0]!;
  } else if (tokens.length === 4) {
    if (HOST_TOKEN.test(tokens[0]!)) {
      vhost = tokens[0]!;
      client = tokens[1]!;
    } else {
      // A client written with a space, as in the redacted "<ip address> - - [...]".
      client = `${tokens[0]} ${tokens[1]}`;
    }
  } else if (tokens.length === 5 && HOST_TOKEN.test(tokens[0]!)) {
    vhost = tokens[0]!;
    client = tokens[1]!;
  } else {
    return undefined; // 1610/1619-style lines with ident or user missing are malformed, not guessed at
  }

  const close = s.indexOf(']', open);
  if (close < 0) return undefined;
  const at = clfTime(s.slice(open + 1, close));
  if (at === undefined) return undefined;

  let i = skipSpaces(s, close + 1);
  const request = readQuoted(s, i);
  if (request === undefined) return undefined;
  i = skipSpaces(s, request.end);
  const statusToken = readToken(s, i);
  if (!STATUS.test(statusToken) && statusToken !== '-') return undefined;
  i = skipSpaces(s, i + statusToken.length);
  const sizeToken = readToken(s, i);
  if (!SIZE.test(sizeToken)) return undefined;
  i = skipSpaces(s, i + sizeToken.length);

  let referrer = '';
  let userAgent = '';
  if (i < s.length) {
    // Common format ends at the size; combined continues with quoted referer and user agent.
    const ref = readQuoted(s, i);
    if (ref === undefined) return undefined;
    referrer = unescapeLogText(ref.raw);
    i = skipSpaces(s, ref.end);
    if (i < s.length && s.charCodeAt(i) === QUOTE) {
      const ua = readQuoted(s, i);
      if (ua === undefined) return undefined;
      userAgent = unescapeLogText(ua.raw);
    }
    // Anything after the user agent ($http_x_forwarded_for, $request_time, request ids) is ignored.
  }

  const { method, target } = requestLine(unescapeLogText(request.raw));
  return {
    format: 'combined',
    at,
    method,
    host: vhost === undefined ? undefined : normalizeHost(vhost),
    target: target === undefined ? undefined : clean(target),
    status: statusToken === '-' ? undefined : Number(statusToken),
    userAgent: dash(clean(userAgent)),
    referrer: dash(clean(referrer)),
    clientIp: ipOrUndefined(client),
  };
}

function skipSpaces(s: string, i: number): number {
  while (i < s.length && (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === 0x09)) i++;
  return i;
}

function readToken(s: string, i: number): string {
  let j = i;
  while (j < s.length && s.charCodeAt(j) !== SPACE && s.charCodeAt(j) !== 0x09) j++;
  return s.slice(i, j);
}

/**
 * A double-quoted field starting at `i`, where a backslash escapes the next character (Apache writes
 * `\"` and `\\`; nginx writes `\x22` and `\x5C`, which contain no quote). Undefined when `i` is not
 * a quote or the field never closes (a truncated line).
 */
function readQuoted(s: string, i: number): { raw: string; end: number } | undefined {
  if (s.charCodeAt(i) !== QUOTE) return undefined;
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return undefined;
    let k = q - 1;
    while (k > i && s.charCodeAt(k) === BACKSLASH) k--;
    // An even run of backslashes before the quote escapes only itself: the quote closes the field.
    if ((q - 1 - k) % 2 === 0) return { raw: s.slice(i + 1, q), end: q + 1 };
    from = q + 1;
  }
}

/** "GET /x HTTP/1.1" -> method and target; "-", "HELP" and binary junk give neither. */
function requestLine(request: string): { method: string | undefined; target: string | undefined } {
  const parts = request.split(' ').filter((p) => p.length > 0);
  if (parts.length < 2 || !METHOD.test(parts[0]!)) return { method: undefined, target: undefined };
  if (parts.length <= 3) return { method: parts[0], target: parts[1] };
  // An unencoded space in the target: "GET /a b HTTP/1.1".
  if (parts.at(-1)!.startsWith('HTTP/')) return { method: parts[0], target: parts.slice(1, -1).join(' ') };
  return { method: undefined, target: undefined };
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', r: '\r', t: '\t', b: '\b', v: '\v', f: '\f' };
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Undoes Apache's and nginx's log escaping: `\"`, `\\`, `\n`-style escapes, and runs of `\xHH`
 * bytes decoded as UTF-8. Where a run is not valid UTF-8 (the CP1251 referers in the corpus) its
 * ASCII bytes are decoded and the other bytes stay written as `\xHH`, so nothing is invented. A NUL
 * byte also stays written as `\x00`: PostgreSQL text cannot hold it.
 */
function unescapeLogText(raw: string): string {
  let b = raw.indexOf('\\');
  if (b < 0) return raw;
  let out = '';
  let i = 0;
  while (b >= 0) {
    out += raw.slice(i, b);
    const c = raw[b + 1];
    if (c === 'x' || c === 'X') {
      const bytes: number[] = [];
      let k = b;
      while (raw.charCodeAt(k) === BACKSLASH && (raw[k + 1] === 'x' || raw[k + 1] === 'X')) {
        const hi = hexValue(raw.charCodeAt(k + 2));
        const lo = hexValue(raw.charCodeAt(k + 3));
        if (hi < 0 || lo < 0) break;
        bytes.push(hi * 16 + lo);
        k += 4;
      }
      if (bytes.length === 0) {
        out += '\\';
        i = b + 1;
      } else {
        out += decodeBytes(bytes, raw.slice(b, k));
        i = k;
      }
    } else if (c !== undefined && Object.hasOwn(SIMPLE_ESCAPES, c)) {
      out += SIMPLE_ESCAPES[c];
      i = b + 2;
    } else {
      out += '\\';
      i = b + 1;
    }
    b = raw.indexOf('\\', i);
  }
  return out + raw.slice(i);
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

function decodeBytes(bytes: number[], written: string): string {
  if (!bytes.includes(0)) {
    try {
      return utf8.decode(new Uint8Array(bytes));
    } catch {
      // not UTF-8: fall through to byte by byte
    }
  }
  let out = '';
  for (let j = 0; j < bytes.length; j++) {
    const byte = bytes[j]!;
    out += byte > 0 && byte < 0x80 ? String.fromCharCode(byte) : written.slice(j * 4, j * 4 + 4);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Caddy JSON access lines (http.log.access*, "handled request" or "NOP": both are real requests)

/** `caddy  | {...}`, `Jan 1 00:00:00 host caddy[1]: {...}`, or the console encoder's tab-separated head. */
function parsePrefixedCaddy(s: string): LogEntry | undefined {
  if (s.charCodeAt(s.length - 1) !== 0x7d) return undefined; // a truncated JSON object cannot parse
  const brace = s.indexOf('{');
  if (brace < 1) return undefined;
  const prefix = s.slice(0, brace);
  const fields = prefix.split('\t');
  // Console encoder: time \t LEVEL \t logger \t msg \t {json}; the JSON then has no ts or logger.
  if (fields.length >= 5) return parseCaddy(s.slice(brace), fields[2], parseTimeString(fields[0]!.trim()));
  return parseCaddy(s.slice(brace), undefined, undefined);
}

function parseCaddy(json: string, prefixLogger: string | undefined, prefixAt: Date | undefined): LogEntry | undefined {
  if (!json.includes('"request"')) return undefined; // runtime lines (admin, tls, ...) carry no request
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const logger = typeof value.logger === 'string' ? value.logger : prefixLogger;
  // Denied by default: a named logger other than the access log (http.handlers.reverse_proxy and
  // http.log.error also carry a request, and would count the same request twice).
  if (logger !== undefined && !logger.startsWith('http.log.access')) return undefined;
  const request = value.request;
  if (!isObject(request)) return undefined;
  const method = nonEmpty(request.method);
  const target = nonEmpty(request.uri);
  if (method === undefined && target === undefined) return undefined;
  const headers = isObject(request.headers) ? request.headers : {};
  const host = nonEmpty(request.host);
  return {
    format: 'caddy',
    at: epochOrTime(value.ts) ?? prefixAt,
    method,
    host: host === undefined ? undefined : normalizeHost(host),
    target,
    status: statusOf(value.status),
    userAgent: dash(header(headers, 'User-Agent')),
    referrer: dash(header(headers, 'Referer')),
    // client_ip is the client behind trusted proxies (v2.7+); remote_ip the peer; remote_addr pre-2.5.
    clientIp:
      ipOrUndefined(request.client_ip) ?? ipOrUndefined(request.remote_ip) ?? ipOrUndefined(hostPart(request.remote_addr)),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? clean(value) : undefined;
}

function statusOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 999 ? value : undefined;
  if (typeof value === 'string' && STATUS.test(value)) return Number(value);
  return undefined;
}

/** Caddy logs headers as arrays under Go's canonical keys; other writers use lower case or plain strings. */
function header(headers: Record<string, unknown>, name: string): string {
  let value = Object.hasOwn(headers, name) ? headers[name] : undefined;
  if (value === undefined) {
    const lower = name.toLowerCase();
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === lower) {
        value = headers[key];
        break;
      }
    }
  }
  if (Array.isArray(value)) value = value.find((v) => typeof v === 'string');
  return typeof value === 'string' ? clean(value) : '';
}

// ---------------------------------------------------------------------------------------------
// Hosts, addresses and strings

/** Lower case, without a port; `[v6]:port` -> `v6`. */
function normalizeHost(host: string): string | undefined {
  const bare = hostPart(host);
  return bare === undefined || bare.length === 0 ? undefined : clean(bare.toLowerCase());
}

/** The host of `host`, `host:port`, `[v6]` or `[v6]:port`; a bare IPv6 address is left whole. */
function hostPart(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end < 0 ? value : value.slice(1, end);
  }
  const colon = value.indexOf(':');
  if (colon >= 0 && colon === value.lastIndexOf(':')) return value.slice(0, colon);
  return value;
}

/** Only a syntactically valid IPv4/IPv6 address: "unix:", "0000", "83.0.2" and "<ip address>" are not. */
function ipOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 64 && isIP(value) !== 0 ? value : undefined;
}

function dash(value: string): string {
  return value === '-' ? '' : value;
}

/** Strings that storage accepts: well-formed UTF-16 and no NUL (PostgreSQL text cannot hold U+0000). */
function clean(value: string): string {
  let out = value.isWellFormed() ? value : value.toWellFormed();
  if (out.includes('\0')) out = out.replaceAll('\0', '\uFFFD');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Times

const MONTHS: Record<string, number> = {
  jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11,
};
const CLF_TIME = /^(\d{2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?: ([+-])(\d{2})(\d{2}))?$/;
/** ISO 8601 / RFC 3339 (also zap's `+0800` offsets) and Caddy's `wall` layouts (`2006/01/02 15:04:05.000`). */
const ISO_OR_WALL =
  /^(\d{4})([-/])(\d{2})\2(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i;
const DECIMAL = /^\d{1,20}(?:\.\d{1,20})?$/;
const MAX_MS = 8.64e15;

/** `10/Oct/2000:13:55:36 -0700`; without a zone, UTC. */
function clfTime(text: string): Date | undefined {
  const m = CLF_TIME.exec(text);
  if (m === null) return undefined;
  const month = MONTHS[m[2]!.toLowerCase()];
  if (month === undefined) return undefined;
  const offset = m[7] === undefined ? 0 : offsetMinutes(m[7], m[8]!, m[9]!);
  return utcDate(+m[3]!, month, +m[1]!, +m[4]!, +m[5]!, +m[6]!, 0, offset);
}

/** Caddy `ts`: a number (unix seconds by default; milli-, micro- or nanoseconds told apart by size) or a string. */
function epochOrTime(value: unknown): Date | undefined {
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value === 'string') return parseTimeString(value);
  return undefined;
}

function fromEpoch(n: number): Date | undefined {
  if (!Number.isFinite(n) || n < 0) return undefined;
  const ms = n < 1e11 ? n * 1e3 : n < 1e14 ? n : n < 1e17 ? n / 1e3 : n / 1e6;
  const rounded = Math.round(ms);
  return rounded <= MAX_MS ? new Date(rounded) : undefined;
}

/** The string forms Caddy's time_format can produce; a layout typo ("ios8605") gives undefined. */
function parseTimeString(text: string): Date | undefined {
  if (DECIMAL.test(text)) return fromEpoch(Number(text));
  const clf = clfTime(text);
  if (clf !== undefined) return clf;
  const m = ISO_OR_WALL.exec(text);
  if (m === null) return undefined;
  const fraction = m[8] === undefined ? 0 : Number(m[8].slice(0, 3).padEnd(3, '0'));
  // No zone (Caddy's custom and wall layouts): Caddy renders those in UTC unless time_local is set.
  const offset = m[10] === undefined ? 0 : offsetMinutes(m[10], m[11]!, m[12]!);
  return utcDate(+m[1]!, +m[3]! - 1, +m[4]!, +m[5]!, +m[6]!, +m[7]!, fraction, offset);
}

function offsetMinutes(sign: string, hours: string, minutes: string): number {
  const h = +hours;
  const min = +minutes;
  if (h > 23 || min > 59) return Number.NaN;
  return (sign === '-' ? -1 : 1) * (h * 60 + min);
}

/** A real calendar time (no 31 February, no hour 25) shifted by its UTC offset; else undefined. */
function utcDate(
  year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number, offset: number,
): Date | undefined {
  if (Number.isNaN(offset) || month < 0 || month > 11 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  const local = Date.UTC(year, month, day, hour, minute, second, ms);
  if (new Date(Date.UTC(year, month, day)).getUTCDate() !== day) return undefined;
  const t = local - offset * 60_000;
  return Number.isFinite(t) && Math.abs(t) <= MAX_MS ? new Date(t) : undefined;
}
