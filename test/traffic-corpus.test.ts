import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { createProject } from '../src/projects/create-project.ts';
import { classifyLine } from '../src/traffic/ingest-log.ts';
import { bearer, createFixture, useTestApp } from './helpers.ts';

const LOGS = new URL('../../shared/testdata/logs/', import.meta.url);
const files = readdirSync(LOGS).filter((f) => /\.(log|jsonl|txt)$/.test(f));

describe('ingest against the real log corpus', () => {
  const ctx = useTestApp();

  for (const file of files) {
    test(`${file}: every line lands in exactly one counter; a second upload is all duplicates or dropped`, async () => {
      const fx = await createFixture(ctx.db);
      const { id: projectId } = await createProject(ctx.db, fx.workspaceId, { name: file, domain: 'corpus-brand.com' });
      const key = (await createApiKey(ctx.db, { workspaceId: fx.workspaceId, projectId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const body = readFileSync(new URL(file, LOGS), 'utf8');
      const post = () =>
        ctx.app.inject({ method: 'POST', url: `/api/ingest/${projectId}`, headers: { ...bearer(key), 'content-type': 'text/plain' }, payload: body });
      const first = await post();
      assert.equal(first.statusCode, 200, first.body);
      const c = first.json().data;
      const nonEmpty = body.split('\n').filter((l) => l.replace(/\r$/, '').trim() !== '').length;
      assert.equal(c.linesRead, nonEmpty);
      assert.equal(c.crawlerHits + c.aiVisits + c.dropped + c.duplicates, c.linesRead);
      if (file === 'ai_lines_real.log') assert.equal(c.crawlerHits + c.aiVisits, c.linesRead, 'every line of the AI corpus is AI');
      const again = (await post()).json().data;
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
          if ('drop' in result) assert.ok(['too_long', 'unparsed', 'not_ai'].includes(result.drop));
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
    const now = new Date();
    const gptbot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
    const line = (path: string, ua: string, ref = '-') => `203.0.113.1 - - [21/Nov/2026:10:00:00 +0000] "GET ${path} HTTP/1.1" 200 10 "${ref}" "${ua}"`;
    assert.deepEqual(classifyLine(line(`/${'x'.repeat(16_400)}`, gptbot), 'rest', project, now), { drop: 'too_long' });
    assert.deepEqual(classifyLine('garbage', 'rest', project, now), { drop: 'unparsed' });
    assert.deepEqual(classifyLine(line('/', 'Mozilla/5.0 Chrome/131'), 'rest', project, now), { drop: 'not_ai' });
    assert.deepEqual(classifyLine(line('/', 'Mozilla/5.0 Chrome/131', 'https://www.google.com/'), 'rest', project, now), { drop: 'not_ai' });
    const hit = classifyLine(line('/a?b=1', gptbot), 'cf-worker', project, now);
    assert.ok('hit' in hit && hit.hit.bot === 'GPTBot' && hit.hit.path === '/a' && hit.hit.source === 'cf-worker');
  });
});
