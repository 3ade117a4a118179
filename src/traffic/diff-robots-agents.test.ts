import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { REGISTRY_OVERLAY } from './crawler-registry.ts';
import { diffRobotsAgents } from './diff-robots-agents.ts';

const VENDOR = fileURLToPath(new URL('./vendor/ai-robots-txt/', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../scripts/sync-ai-robots.ts', import.meta.url));
const current: Record<string, unknown> = JSON.parse(readFileSync(join(VENDOR, 'robots.json'), 'utf8'));

describe('a new ai.robots.txt list, reviewed before it is taken', () => {
  test('added names show where they land, with warnings for short names and ones ordinary user agents contain; removed names say if they were curated', () => {
    const { GPTBot: _gone, ...rest } = current;
    const next = { ...rest, 'Shiny-Fetcher': { function: 'AI Assistants' }, Bot: { function: 'AI Data Scrapers' }, Googlebot: { function: 'AI Search Crawlers' }, 'Shiny-Fetcher/2.0': {} };
    const diff = diffRobotsAgents(current, next, REGISTRY_OVERLAY, ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)']);
    assert.equal(diff.before, 166);
    assert.equal(diff.after, 169);
    const added = Object.fromEntries(diff.added.map((a) => [a.name, a]));
    assert.deepEqual([added['Shiny-Fetcher']?.platform, added['Shiny-Fetcher']?.purpose, added['Shiny-Fetcher']?.warnings], ['other', 'user', []]);
    assert.match(added.Bot!.warnings.join(), /short name/);
    assert.match(added.Googlebot!.warnings.join(), /non-AI user agent.*NOT_MATCHED/);
    assert.equal(added['Shiny-Fetcher/2.0']?.note, 'a version of shiny-fetcher');
    assert.deepEqual(diff.removed.map((r) => [r.name, r.curated]), [['GPTBot', true]]);
  });

  test('scripts/sync-ai-robots.ts prints the diff, then writes the file and the commit; --dry-run writes nothing; junk is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sync-ai-robots-'));
    try {
      copyFileSync(join(VENDOR, 'robots.json'), join(dir, 'robots.json'));
      copyFileSync(join(VENDOR, 'SOURCE.md'), join(dir, 'SOURCE.md'));
      const nextText = `${JSON.stringify({ ...current, 'Shiny-Fetcher': { function: 'AI Assistants' } }, null, 4)}\n`;
      writeFileSync(join(dir, 'next.json'), nextText);
      const run = (...args: string[]) => promisify(execFile)(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });

      const dry = await run(join(dir, 'next.json'), '--vendor-dir', dir, '--dry-run');
      assert.match(dry.stdout, /166 -> 167 agents \(\+1, -0\)\n\+ Shiny-Fetcher {2}matched, platform other, purpose user\n/);
      assert.match(dry.stdout, /dry run: nothing written/);
      assert.equal(readFileSync(join(dir, 'robots.json'), 'utf8'), readFileSync(join(VENDOR, 'robots.json'), 'utf8'));

      const wet = await run(join(dir, 'next.json'), '--vendor-dir', dir, '--commit', 'abcdef1234567');
      assert.match(wet.stdout, /wrote .*robots\.json \(commit abcdef1234567\)/);
      assert.equal(readFileSync(join(dir, 'robots.json'), 'utf8'), nextText, 'written verbatim');
      assert.match(readFileSync(join(dir, 'SOURCE.md'), 'utf8'), /^- Commit: abcdef1234567$/m);

      writeFileSync(join(dir, 'junk.json'), '["not", "agents"]');
      await assert.rejects(run(join(dir, 'junk.json'), '--vendor-dir', dir), (error: { code: number; stderr: string }) => error.code === 1 && /not an object of agents/.test(error.stderr));
      assert.equal(readFileSync(join(dir, 'robots.json'), 'utf8'), nextText, 'junk leaves the file alone');
      await assert.rejects(run('--vendor-dir', dir), (error: { code: number }) => error.code === 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
