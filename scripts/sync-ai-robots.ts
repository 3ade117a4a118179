/**
 * Takes a new ai.robots.txt `robots.json` into src/traffic/vendor/ai-robots-txt/: prints the agents
 * added and removed (with what the registry makes of each, and warnings to review), then writes it.
 *
 *   node scripts/sync-ai-robots.ts <path to robots.json> [--commit <sha>] [--dry-run] [--vendor-dir <dir>]
 *
 * No network: fetch the file yourself (e.g. from a checkout of github.com/ai-robots-txt/ai.robots.txt).
 * `--commit` records the upstream commit in SOURCE.md. Then run the tests.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { REGISTRY_OVERLAY } from '../src/traffic/crawler-registry.ts';
import { diffRobotsAgents } from '../src/traffic/diff-robots-agents.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { commit: { type: 'string' }, 'dry-run': { type: 'boolean', default: false }, 'vendor-dir': { type: 'string' } },
});
const source = positionals[0];
if (source === undefined || positionals.length > 1) {
  console.error('usage: node scripts/sync-ai-robots.ts <path to robots.json> [--commit <sha>] [--dry-run] [--vendor-dir <dir>]');
  process.exit(2);
}
if (values.commit !== undefined && !/^[0-9a-f]{7,40}$/i.test(values.commit)) {
  console.error(`--commit ${values.commit}: not a commit id`);
  process.exit(2);
}
const vendor = values['vendor-dir'] ? resolve(values['vendor-dir']) : fileURLToPath(new URL('../src/traffic/vendor/ai-robots-txt/', import.meta.url));
const target = join(vendor, 'robots.json');

const text = readFileSync(source, 'utf8');
let next: unknown;
try {
  next = JSON.parse(text);
} catch (error) {
  console.error(`${source}: not JSON (${(error as Error).message})`);
  process.exit(1);
}
const current: unknown = JSON.parse(readFileSync(target, 'utf8'));
const ordinary = readFileSync(new URL('../test/fixtures/agents/non_ai_uas.tsv', import.meta.url), 'utf8')
  .split(/\r?\n/)
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .slice(1)
  .map((line) => line.split('\t')[0] ?? '');

let diff;
try {
  diff = diffRobotsAgents(current, next, REGISTRY_OVERLAY, ordinary);
} catch (error) {
  console.error(`${source}: ${(error as Error).message}`);
  process.exit(1);
}

console.log(`ai.robots.txt: ${diff.before} -> ${diff.after} agents (+${diff.added.length}, -${diff.removed.length})`);
for (const a of diff.added) {
  const what =
    a.status !== 'matched' ? `${a.status}${a.note ? `: ${a.note}` : ''}` : a.note ? `matched as ${a.token} (${a.note})` : `matched, platform ${a.platform}, purpose ${a.purpose}`;
  console.log(`+ ${a.name}  ${what}`);
  for (const warning of a.warnings) console.log(`    ! ${warning}`);
}
for (const r of diff.removed) {
  console.log(`- ${r.name}  was ${r.status}${r.curated ? '; its curated line in crawler-registry.ts is now unused: remove it or mark it ours()' : ''}`);
}
if (diff.added.length === 0 && diff.removed.length === 0) console.log('no agent added or removed');

if (values['dry-run']) {
  console.log('dry run: nothing written');
} else {
  writeFileSync(target, text);
  if (values.commit !== undefined) {
    const sourceNote = join(vendor, 'SOURCE.md');
    const note = readFileSync(sourceNote, 'utf8').replace(/^- Commit: .*$/m, `- Commit: ${values.commit}`).replace(/^- Date: .*$/m, `- Date: synced ${new Date().toISOString().slice(0, 10)}`);
    writeFileSync(sourceNote, note);
  }
  console.log(`wrote ${target}${values.commit ? ` (commit ${values.commit})` : ''}; now run the tests`);
}
