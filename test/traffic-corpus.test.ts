import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { createProject } from '../src/projects/create-project.ts';
import { classifyLine } from '../src/traffic/ingest-log.ts';
import { parseLogLine } from '../src/traffic/parse-log-line.ts';
import { INGEST_WINDOW_DAYS } from '../src/traffic/traffic-limits.ts';
import { bearer, createFixture, useTestApp } from './helpers.ts';

const LOGS = new URL('./fixtures/logs/', import.meta.url);
const files = readdirSync(LOGS).filter((f) => /\.(log|jsonl|txt)$/.test(f));

/**
 * The lines of a file in uploads a clock can take: each upload holds lines dated within the ingest
 * window of its clock (the newest line's time, or less), lines with no time in the first. Corpus
 * lines span 2009 to 2026; the window is 90 days.
 */
function uploadsOf(body: string): { clock: Date; body: string }[] {
  const entries = body.split('\n').map((line) => ({ line, at: parseLogLine(line.replace(/\r$/, ''))?.at }));
  const dated = entries.filter((e): e is { line: string; at: Date } => e.at !== undefined).sort((a, b) => a.at.getTime() - b.at.getTime());
  const uploads: { clock: Date; lines: string[] }[] = [];
  for (const entry of dated) {
    const last = uploads.at(-1);
    if (last && entry.at <= last.clock) last.lines.push(entry.line);
    else uploads.push({ clock: new Date(entry.at.getTime() + (INGEST_WINDOW_DAYS - 1) * 86_400_000), lines: [entry.line] });
  }
  const undated = entries.filter((e) => e.at === undefined).map((e) => e.line);
  if (uploads.length === 0) uploads.push({ clock: new Date(), lines: [] });
  uploads[0]!.lines.push(...undated);
  return uploads.map((u) => ({ clock: u.clock, body: u.lines.join('\n') }));
}

describe('ingest against the real log corpus', () => {
  let clock = new Date();
  const ctx = useTestApp({ now: () => clock });

  for (const file of files) {
    test(`${file}: every line lands in exactly one counter; a second upload is all duplicates or dropped`, async () => {
      const fx = await createFixture(ctx.db);
      const { id: projectId } = await createProject(ctx.db, fx.workspaceId, { name: file, domain: 'corpus-brand.com' });
      const key = (await createApiKey(ctx.db, { workspaceId: fx.workspaceId, projectId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const body = readFileSync(new URL(file, LOGS), 'utf8');
      const uploads = uploadsOf(body);
      const postAll = async () => {
        const sum = { linesRead: 0, crawlerHits: 0, aiVisits: 0, dropped: 0, duplicates: 0 };
        for (const upload of uploads) {
          clock = upload.clock;
          const res = await ctx.app.inject({ method: 'POST', url: `/api/ingest/${projectId}`, headers: { ...bearer(key), 'content-type': 'text/plain' }, payload: upload.body });
          assert.equal(res.statusCode, 200, res.body);
          const data = res.json().data as typeof sum;
          assert.equal(data.crawlerHits + data.aiVisits + data.dropped + data.duplicates, data.linesRead);
          for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += data[k];
        }
        return sum;
      };
      const c = await postAll();
      const nonEmpty = body.split('\n').filter((l) => l.replace(/\r$/, '').trim() !== '').length;
      assert.equal(c.linesRead, nonEmpty);
      assert.equal(c.crawlerHits + c.aiVisits + c.dropped + c.duplicates, c.linesRead);
      if (file === 'ai_lines_real.log') assert.equal(c.crawlerHits + c.aiVisits, c.linesRead, 'every line of the AI corpus is AI');
      const again = await postAll();
      assert.equal(again.crawlerHits + again.aiVisits, 0);
      assert.equal(again.duplicates, c.crawlerHits + c.aiVisits + c.duplicates);
    });
  }

  test('no line crashes the pipeline or escapes the counters (property)', async () => {
    const corpusLines = files.flatMap((f) => readFileSync(new URL(f, LOGS), 'utf8').split('\n')).filter((l) => l.trim() !== '');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.constantFrom(...corpusLines),
          fc.tuple(fc.constantFrom(...corpusLines), fc.nat(), fc.string({ maxLength: 20 })).map(([line, at, insert]) => {
            const i = at % (line.length + 1);
            return line.slice(0, i) + insert + line.slice(i);
          }),
        ),
        (line) => {
          const result = classifyLine(line, 'rest', { domain: 'corpus-brand.com' }, new Date());
          if ('drop' in result) assert.ok(['too_long', 'unparsed', 'too_old', 'in_future', 'not_ai'].includes(result.drop));
          else {
            assert.ok(result.hit.kind === 'crawler' || result.hit.kind === 'visit');
            assert.ok(result.hit.path.startsWith('/'));
            assert.ok(!Number.isNaN(result.hit.at.getTime()));
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  test('each drop reason', () => {
    const project = { domain: 'corpus-brand.com' };
    const now = new Date('2026-11-22T12:00:00Z');
    const gptbot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
    const line = (path: string, ua: string, ref = '-') => `203.0.113.1 - - [21/Nov/2026:10:00:00 +0000] "GET ${path} HTTP/1.1" 200 10 "${ref}" "${ua}"`;
    assert.deepEqual(classifyLine(line(`/${'x'.repeat(16_400)}`, gptbot), 'rest', project, now), { drop: 'too_long' });
    assert.deepEqual(classifyLine('garbage', 'rest', project, now), { drop: 'unparsed' });
    assert.deepEqual(classifyLine(line('/', 'Mozilla/5.0 Chrome/131'), 'rest', project, now), { drop: 'not_ai' });
    assert.deepEqual(classifyLine(line('/', 'Mozilla/5.0 Chrome/131', 'https://www.google.com/'), 'rest', project, now), { drop: 'not_ai' });
    const dated = (time: string) => `203.0.113.1 - - [${time}] "GET / HTTP/1.1" 200 10 "-" "${gptbot}"`;
    assert.deepEqual(classifyLine(dated('23/Aug/2026:23:59:59 +0000'), 'rest', project, now), { drop: 'too_old' });
    assert.deepEqual(classifyLine(dated('01/Jan/0000:00:00:00 +0000'), 'rest', project, now), { drop: 'too_old' });
    assert.ok('hit' in classifyLine(dated('24/Aug/2026:00:00:00 +0000'), 'rest', project, now), 'the first day of the window');
    assert.deepEqual(classifyLine(dated('23/Nov/2026:12:00:01 +0000'), 'rest', project, now), { drop: 'in_future' });
    assert.ok('hit' in classifyLine(dated('23/Nov/2026:12:00:00 +0000'), 'rest', project, now), 'one day ahead');
    const year99999 = JSON.stringify({ ts: Date.UTC(99_999, 0, 1) * 1e6, logger: 'http.log.access', request: { method: 'GET', uri: '/', headers: { 'User-Agent': [gptbot] } } });
    assert.deepEqual(classifyLine(year99999, 'rest', project, now), { drop: 'in_future' });
    const hit = classifyLine(line('/a?b=1', gptbot), 'cf-worker', project, now);
    assert.ok('hit' in hit && hit.hit.bot === 'GPTBot' && hit.hit.path === '/a' && hit.hit.source === 'cf-worker');
  });
});
