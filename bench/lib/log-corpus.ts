/**
 * Realistic ingest bodies for bench/ingest.ts, built from the real log lines in
 * test/fixtures/logs/ (Apache/nginx combined lines, Caddy JSON access lines bare, behind a
 * docker-compose prefix and in Caddy's console encoding), mixed deterministically:
 *
 * - ordinary traffic (browsers, search bots, curl...), most of the lines;
 * - AI crawler hits: the real GPTBot/ClaudeBot/Bytespider/Amazonbot lines of the corpus, and corpus
 *   lines given the user agent of another AI crawler (OAI-SearchBot, ChatGPT-User, PerplexityBot...);
 * - AI-referred visits: corpus browser lines given an assistant referrer (chatgpt.com,
 *   perplexity.ai, gemini.google.com, claude.ai, copilot.microsoft.com) or, with no referrer, a
 *   landing URL tagged `utm_source=chatgpt.com`;
 * - a little junk the parser drops (the corpus lines it cannot read: Caddy runtime lines, malformed
 *   combined lines).
 *
 * Every line gets its own timestamp (one second apart, per body and line number), so no two lines
 * of any body are the same and ingest's per-line dedupe never drops one. Paths are left as they are
 * (pages repeat, as on a real site). About 75% of the lines are combined format and 25% Caddy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLogLine } from '../../src/traffic/parse-log-line.ts';
import { ROOT } from './common.ts';
import { mulberry32 } from '../../src/demo/prng.ts';

export const CORPUS_DIR = process.env.BENCH_LOG_CORPUS ?? join(ROOT, 'test', 'fixtures', 'logs');

/** Just under the 2 MiB ingest body limit (2,097,152 bytes). */
export const BODY_BYTES = 2_097_152 - 1_024;

export interface Mix {
  /** Share of lines that are AI crawler hits. */
  crawler: number;
  /** Share of lines that are AI-referred visits. */
  visit: number;
  /** Share of unreadable lines. */
  junk: number;
  /** Share of Caddy lines among the readable ones. */
  caddy: number;
}

export const DEFAULT_MIX: Mix = { crawler: 0.08, visit: 0.04, junk: 0.01, caddy: 0.25 };

/** Real AI crawler user agents beyond the corpus's own (vendors' published strings). */
const EXTRA_AI_AGENTS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
  'Mozilla/5.0 (compatible; Google-CloudVertexBot; +https://cloud.google.com/enterprise-search)',
  'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
];

const AI_REFERRERS = [
  'https://chatgpt.com/',
  'https://chatgpt.com/c/6743a1f2-8c1e-800c-9d3b-2f4a1b0c9e77',
  'https://www.perplexity.ai/search?q=best+yacht+charter',
  'https://gemini.google.com/',
  'https://claude.ai/',
  'https://copilot.microsoft.com/',
  'android-app://com.openai.chatgpt/',
];

const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A combined line cut around the fields the generator changes. */
interface CombinedTemplate {
  head: string; // up to and including '['
  middle: string; // from ']' through the size and its trailing space: '] "GET /x HTTP/1.1" 200 123 '
  method: string;
  target: string;
  protocol: string;
  statusAndSize: string;
  referrer: string;
  userAgent: string;
  tail: string; // anything after the user agent's closing quote
}

type CaddyShape = 'bare' | 'docker' | 'console';

interface CaddyTemplate {
  shape: CaddyShape;
  /** The JSON object of the access line. */
  object: Record<string, unknown>;
  /** For the console shape: the level and logger fields between the time and the JSON. */
  consoleMiddle: string;
}

export interface Corpus {
  combined: CombinedTemplate[];
  /** Combined lines already from an AI crawler (used as they are, with a new time). */
  aiCombined: CombinedTemplate[];
  caddy: CaddyTemplate[];
  junk: string[];
  aiAgents: string[];
  paths: string[];
}

const COMBINED = /^(.*?\[)([^\]]+)(\]\s+)"((?:[^"\\]|\\.)*)"(\s+\S+\s+\S+\s+)"((?:[^"\\]|\\.)*)"\s+"((?:[^"\\]|\\.)*)"(.*)$/;

function cutCombined(line: string): CombinedTemplate | undefined {
  const m = COMBINED.exec(line);
  if (!m) return undefined;
  const request = m[4]!.split(' ');
  if (request.length !== 3) return undefined;
  return {
    head: m[1]!,
    middle: m[3]!,
    method: request[0]!,
    target: request[1]!,
    protocol: request[2]!,
    statusAndSize: m[5]!,
    referrer: m[6]!,
    userAgent: m[7]!,
    tail: m[8]!,
  };
}

const readLines = (file: string) =>
  readFileSync(join(CORPUS_DIR, file), 'utf8')
    .split('\n')
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    .filter((l) => l.trim() !== '');

export function loadCorpus(): Corpus {
  const corpus: Corpus = { combined: [], aiCombined: [], caddy: [], junk: [], aiAgents: [...EXTRA_AI_AGENTS], paths: [] };
  for (const line of readLines('combined_real.log')) {
    const parsed = parseLogLine(line);
    const cut = parsed ? cutCombined(line) : undefined;
    if (cut) corpus.combined.push(cut);
    else if (!parsed) corpus.junk.push(line); // a readable line of another shape is left out
  }
  for (const line of readLines('ai_lines_real.log')) {
    const cut = cutCombined(line);
    if (!cut) continue;
    corpus.aiCombined.push(cut);
    if (!corpus.aiAgents.includes(cut.userAgent)) corpus.aiAgents.push(cut.userAgent);
  }
  for (const line of readLines('caddy_real.jsonl')) {
    if (parseLogLine(line)) corpus.caddy.push({ shape: 'bare', object: JSON.parse(line) as Record<string, unknown>, consoleMiddle: '' });
  }
  for (const line of readLines('caddy_real_mixed_docker.log')) {
    const brace = line.indexOf('{');
    if (parseLogLine(line) && brace > 0) corpus.caddy.push({ shape: 'docker', object: JSON.parse(line.slice(brace)) as Record<string, unknown>, consoleMiddle: '' });
    else corpus.junk.push(line);
  }
  for (const line of readLines('caddy_real_console_encoder.log')) {
    const fields = line.split('\t');
    const brace = line.indexOf('{');
    if (parseLogLine(line) && fields.length >= 5 && brace > 0) {
      corpus.caddy.push({ shape: 'console', object: JSON.parse(line.slice(brace)) as Record<string, unknown>, consoleMiddle: fields.slice(1, 4).join('\t') });
    }
  }
  corpus.paths = [...new Set(corpus.combined.map((c) => c.target).filter((t) => t.startsWith('/') && t.length < 200))];
  if (corpus.combined.length === 0 || corpus.caddy.length === 0) throw new Error(`no usable corpus lines in ${CORPUS_DIR}`);
  return corpus;
}


const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function clfTime(d: Date): string {
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

function wallTime(d: Date): string {
  return `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

function renderCombined(t: CombinedTemplate, at: Date, change: { target?: string; referrer?: string; userAgent?: string } = {}): string {
  const target = change.target ?? t.target;
  return `${t.head}${clfTime(at)}${t.middle}"${t.method} ${target} ${t.protocol}"${t.statusAndSize}"${change.referrer ?? t.referrer}" "${change.userAgent ?? t.userAgent}"${t.tail}`;
}

function renderCaddy(t: CaddyTemplate, at: Date, change: { uri?: string; referrer?: string; userAgent?: string }): string {
  const object = structuredClone(t.object);
  const request = (object.request ?? {}) as Record<string, unknown>;
  object.request = request;
  const headers = { ...((request.headers ?? {}) as Record<string, unknown>) };
  request.headers = headers;
  if (change.uri !== undefined) request.uri = change.uri;
  if (change.userAgent !== undefined) headers['User-Agent'] = [change.userAgent];
  if (change.referrer !== undefined) headers.Referer = [change.referrer];
  const seconds = at.getTime() / 1000;
  if (t.shape === 'console') {
    delete object.ts;
    return `${wallTime(at)}\t${t.consoleMiddle}\t${JSON.stringify(object)}`;
  }
  object.ts = seconds;
  const json = JSON.stringify(object);
  return t.shape === 'docker' ? `caddy  | ${json}` : json;
}

export type LineKind = 'ordinary' | 'crawler' | 'visit' | 'junk';

export interface LogBody {
  text: string;
  bytes: number;
  lines: number;
  /** Lines of each kind and format, as generated (what ingest should find). */
  counts: Record<`${LineKind}:${'combined' | 'caddy' | 'junk'}`, number>;
  /** The combined-format lines of the body (for GoAccess, which reads only that format). */
  combinedLines: string[];
}

/**
 * Body number `index` (0, 1, 2, ...): lines until the next would pass `maxBytes`. Bodies with
 * different indices share no line. `firstDay` is the day the times of body 0 start on; each body
 * covers about 2 hours, body i starting i * 6 hours later.
 */
export function makeBody(corpus: Corpus, index: number, options: { mix?: Mix; maxBytes?: number; firstDay?: string } = {}): LogBody {
  const mix = options.mix ?? DEFAULT_MIX;
  const maxBytes = options.maxBytes ?? BODY_BYTES;
  const start = Date.parse(`${options.firstDay ?? '2026-11-01'}T00:00:00Z`) + index * 6 * 3_600_000;
  const random = mulberry32(0x10c5 + index * 7919);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const counts = Object.fromEntries(
    (['ordinary', 'crawler', 'visit', 'junk'] as const).flatMap((k) => (['combined', 'caddy', 'junk'] as const).map((f) => [`${k}:${f}`, 0])),
  ) as LogBody['counts'];
  const lines: string[] = [];
  const combinedLines: string[] = [];
  let bytes = 0;
  for (let i = 0; ; i++) {
    const at = new Date(start + i * 1_000 + Math.floor(random() * 1_000));
    const r = random();
    const kind: LineKind = r < mix.junk ? 'junk' : r < mix.junk + mix.crawler ? 'crawler' : r < mix.junk + mix.crawler + mix.visit ? 'visit' : 'ordinary';
    const caddy = random() < mix.caddy;
    let line: string;
    let format: 'combined' | 'caddy' | 'junk';
    if (kind === 'junk') {
      line = pick(corpus.junk);
      format = 'junk';
    } else if (caddy) {
      format = 'caddy';
      const t = pick(corpus.caddy);
      const uri = pick(corpus.paths);
      if (kind === 'crawler') line = renderCaddy(t, at, { uri, userAgent: pick(corpus.aiAgents) });
      else if (kind === 'visit') {
        line = random() < 0.75
          ? renderCaddy(t, at, { uri, referrer: pick(AI_REFERRERS), userAgent: BROWSER_UA })
          : renderCaddy(t, at, { uri: `${uri}${uri.includes('?') ? '&' : '?'}utm_source=chatgpt.com`, userAgent: BROWSER_UA });
      } else line = renderCaddy(t, at, { uri });
    } else {
      format = 'combined';
      if (kind === 'crawler') {
        line = random() < 0.5 ? renderCombined(pick(corpus.aiCombined), at) : renderCombined(pick(corpus.combined), at, { userAgent: pick(corpus.aiAgents) });
      } else if (kind === 'visit') {
        const t = pick(corpus.combined);
        line = random() < 0.75
          ? renderCombined(t, at, { referrer: pick(AI_REFERRERS), userAgent: BROWSER_UA })
          : renderCombined(t, at, { target: `${t.target}${t.target.includes('?') ? '&' : '?'}utm_source=chatgpt.com`, referrer: '-', userAgent: BROWSER_UA });
      } else {
        const t = pick(corpus.combined);
        // A corpus line that happens to be an AI crawler already stays one; counted as ordinary here.
        line = renderCombined(t, at);
      }
    }
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    lines.push(line);
    if (format === 'combined') combinedLines.push(line);
    counts[`${kind}:${format}`]++;
  }
  return { text: `${lines.join('\n')}\n`, bytes, lines: lines.length, counts, combinedLines };
}
