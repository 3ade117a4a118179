/**
 * SerpApi played by test/fakes/fake-provider.ts, as its own process for bench/sampling.ts (so its
 * CPU is not counted as the service's): every search is answered after `delayMs` with a small
 * answer in the reply shape of its engine (`google`: an AI Overview, `google_ai_mode` and
 * `bing_copilot`: text blocks) that names the brand and a competitor and cites one URL (one page per
 * prompt, from the `#N` at the end of the question).
 *
 *   node bench/lib/fake-serpapi.ts '{"delayMs":800}'
 *
 * It listens on 127.0.0.1 and prints one JSON line, `{"port":N,"pid":N}`, then runs until SIGTERM.
 * Two paths are its own, answered at once: `GET /__stats` (the searches answered since the last
 * reset, by engine, and the requests in flight: now, at most, and on average over the time since the
 * reset) and `GET /__reset` (counts back to zero; answers the stats before the reset).
 */
import { startFakeProvider, type FakeReply, type SeenRequest } from '../../test/fakes/fake-provider.ts';

export interface FakeStats {
  /** Searches answered (replies sent) since the last reset. */
  answered: number;
  /** Searches received since the last reset. */
  received: number;
  byEngine: Record<string, number>;
  /** Anything that was not a search the fake knows (answered 400). */
  unexpected: number;
  inFlight: number;
  maxInFlight: number;
  /** Searches in flight on average since the reset (the time integral over the time). */
  meanInFlight: number;
  sinceResetMs: number;
}

export interface FakeSpec {
  delayMs: number;
}

const spec: FakeSpec = { delayMs: 800, ...(JSON.parse(process.argv[2] ?? '{}') as Partial<FakeSpec>) };

let received = 0;
let answered = 0;
let unexpected = 0;
let byEngine: Record<string, number> = {};
let inFlight = 0;
let maxInFlight = 0;
let resetAt = performance.now();
let lastChange = resetAt;
let integral = 0; // in-flight x ms since the reset

function moveInFlight(delta: number): void {
  const now = performance.now();
  integral += inFlight * (now - lastChange);
  lastChange = now;
  inFlight += delta;
  maxInFlight = Math.max(maxInFlight, inFlight);
}

function stats(): FakeStats {
  moveInFlight(0);
  const since = performance.now() - resetAt;
  return { answered, received, byEngine: { ...byEngine }, unexpected, inFlight, maxInFlight, meanInFlight: Math.round((integral / Math.max(since, 1)) * 100) / 100, sinceResetMs: Math.round(since) };
}

function reset(): void {
  moveInFlight(0);
  received = 0;
  answered = 0;
  unexpected = 0;
  byEngine = {};
  maxInFlight = inFlight;
  resetAt = performance.now();
  lastChange = resetAt;
  integral = 0;
}

const BRAND = 'Acme';
const COMPETITOR = 'Globex';

/** The cited page: one per prompt (`... #N`), so pages are new on a prompt's first answer and reused after. */
function pageOf(q: string): string {
  const n = /#(\d+)\s*$/.exec(q)?.[1] ?? '0';
  return `https://acme.com/guides/crm-${n}`;
}

function replyFor(engine: string, q: string): unknown {
  const link = pageOf(q);
  const references = [{ title: `Acme guide ${link.slice(-4)}`, link, source: 'acme.com', index: 0 }];
  const block = { type: 'paragraph', snippet: `${BRAND} is the usual pick for this; ${COMPETITOR} is cheaper for small teams.`, reference_indexes: [0] };
  if (engine === 'google') return { search_metadata: { status: 'Success' }, ai_overview: { text_blocks: [block], references } };
  if (engine === 'google_ai_mode') return { search_metadata: { status: 'Success' }, text_blocks: [block], references };
  return { search_metadata: { status: 'Success' }, header: 'Here is what I found', text_blocks: [block], references };
}

let fake: Awaited<ReturnType<typeof startFakeProvider>> | undefined;

async function handle(request: SeenRequest): Promise<FakeReply> {
  // The fake keeps every request it saw; this one keeps counts only.
  if (fake) fake.requests.length = 0;
  const url = new URL(request.url, 'http://fake');
  if (url.pathname === '/__stats') return { json: stats() };
  if (url.pathname === '/__reset') {
    const before = stats();
    reset();
    return { json: before };
  }
  const engine = url.searchParams.get('engine') ?? '';
  const q = url.searchParams.get('q') ?? '';
  if (url.pathname !== '/search.json' || !['google', 'google_ai_mode', 'bing_copilot'].includes(engine) || q === '') {
    unexpected++;
    return { status: 400, json: { error: `the bench's fake SerpApi does not know ${request.url.slice(0, 200)}` } };
  }
  received++;
  moveInFlight(1);
  try {
    await new Promise((resolve) => setTimeout(resolve, spec.delayMs));
  } finally {
    moveInFlight(-1);
  }
  answered++;
  byEngine[engine] = (byEngine[engine] ?? 0) + 1;
  return { json: replyFor(engine, q) };
}

if (import.meta.main) {
  fake = await startFakeProvider('127.0.0.1', handle);
  process.stdout.write(`${JSON.stringify({ port: fake.port, pid: process.pid })}\n`);
  const stop = () => {
    void fake!.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
