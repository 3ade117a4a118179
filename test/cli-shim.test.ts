import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cliEnv, listening, ROOT, scratchDataDir } from './processes.ts';

const BIN = join(ROOT, 'bin', 'sightline.js');

/** A Node older than 24 on PATH (outside the project's own), which makes the bin hand over to the pinned one. */
function olderNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    if (dir === '' || dir.startsWith(ROOT) || !existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(/^v(\d+)/.exec(version)?.[1]) < 24) return candidate;
  }
  return undefined;
}

// `sightline` started by an older Node is a shim over a Node 24 child: what a supervisor does to the
// process it started (SIGTERM) must reach the server, and the child's exit must be the shim's. The
// shim used to die alone, leaving the server serving with its embedded database.
describe('the bin under an older Node', () => {
  const node = olderNode();
  const dataDir = scratchDataDir('shim');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('hands over to the pinned Node: its output and exit code are the command\'s', { skip: node === undefined && 'no Node older than 24 on PATH' }, () => {
    const help = spawnSyncResult(node!, [BIN, '--help', '--json'], dataDir);
    assert.equal(help.code, 0);
    assert.match(JSON.parse(help.stdout).usage, /^usage: sightline/);
    assert.equal(spawnSyncResult(node!, [BIN, 'frobnicate', '--json'], dataDir).code, 2);
  });

  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    test(`a ${signal} to the shim stops the server it started`, { skip: node === undefined && 'no Node older than 24 on PATH', timeout: 90_000 }, async () => {
      const shim = spawn(node!, [BIN, 'serve'], { env: { ...cliEnv(dataDir), PORT: '0', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      try {
        const { url } = await listening(shim);
        assert.equal((await fetch(`${url}/api/v1/bots.json`)).status, 200);
        const exited = new Promise<number | null>((resolve) => shim.once('exit', (code) => resolve(code)));
        shim.kill(signal);
        assert.equal(await exited, 0, 'the shim exits as the server did, after stopping it');
        await assert.rejects(fetch(`${url}/api/v1/bots.json`), 'nothing serves the address any more');
      } finally {
        // Whatever happened, nothing of this test keeps running (the shim leads its process group).
        try {
          process.kill(-shim.pid!, 'SIGKILL');
        } catch {}
      }
    });
  }
});

function spawnSyncResult(command: string, args: string[], dataDir: string): { code: number | null; stdout: string } {
  try {
    return { code: 0, stdout: execFileSync(command, args, { encoding: 'utf8', env: cliEnv(dataDir), stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const failed = error as { status: number | null; stdout: string };
    return { code: failed.status, stdout: failed.stdout };
  }
}
