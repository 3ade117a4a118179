import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { openEmbedded } from '../src/db/database.ts';
import { clusterLayout } from '../src/db/embedded/layout.ts';
import { leaseCluster } from '../src/db/embedded/lease-cluster.ts';
import { postmasterUser } from '../src/db/embedded/os-user.ts';
import { isPostmasterOf, processAlive, readPostmasterPid } from '../src/db/embedded/postmaster.ts';
import type { DB } from '../src/db/types.ts';
import { cliEnv, json, scratchDataDir, spawnCli, startServer, stopServer } from './processes.ts';

// The embedded PostgreSQL shared by processes: started by whichever needs it first, joined by the
// others, stopped by the last to leave, recovered after crashes. Every process here is a real one.

function postmasterOf(dataDir: string): number | undefined {
  const { pgdata } = clusterLayout(dataDir);
  const pid = readPostmasterPid(pgdata)?.pid;
  return pid !== undefined && processAlive(pid) && isPostmasterOf(pid, pgdata) ? pid : undefined;
}

async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

const N_RUNS = 6_000;
const DAYS = ['2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14', '2026-11-15'];
const ENGINES = ['chatgpt', 'perplexity', 'gemini', 'claude'];

/** N runs with ids, spread over six days; every third one names the brand. */
function runLines(count = N_RUNS): string {
  return (
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        id: `0b8f2a4c-1d3e-4f5a-8b6c-${String(i).padStart(12, '0')}`,
        engine: ENGINES[i % ENGINES.length],
        prompt: `prompt ${i % 40}`,
        ranAt: `${DAYS[i % DAYS.length]}T09:00:00Z`,
        status: 'ok',
        answer: i % 3 === 0 ? 'Kept is the one to pick' : 'no names here',
      }),
    ).join('\n') + '\n'
  );
}

async function totals(db: Kysely<DB>, projectId: string): Promise<{ runs: number; okRuns: number; brandRuns: number }> {
  const runs = await sql<{ n: number }>`select count(*)::int as n from runs where project_id = ${projectId}`.execute(db);
  const ok = await sql<{ n: number }>`select coalesce(sum(ok_runs), 0)::int as n from run_rollup where project_id = ${projectId} and grouping = 15`.execute(db);
  const brand = await sql<{ n: number }>`select coalesce(sum(mention_runs), 0)::int as n from subject_rollup
    where project_id = ${projectId} and grouping = 15 and subject_id = ${projectId}`.execute(db);
  return { runs: runs.rows[0]!.n, okRuns: ok.rows[0]!.n, brandRuns: brand.rows[0]!.n };
}

const EXPECTED = { runs: N_RUNS, okRuns: N_RUNS, brandRuns: Math.ceil(N_RUNS / 3) };

describe('the embedded PostgreSQL shared by processes', () => {
  const dataDirs: string[] = [];
  const fresh = (tag: string) => {
    const dir = scratchDataDir(tag);
    dataDirs.push(dir);
    return dir;
  };
  after(async () => {
    // Nothing left running by these tests.
    for (const dir of dataDirs) await eventually(`no postmaster runs for ${dir}`, () => postmasterOf(dir) === undefined);
  });

  test('commands started at once on a new data directory: one cluster, every command lands, the last to leave stops it', async () => {
    const dataDir = fresh('emb-race');
    const env = cliEnv(dataDir);
    const made = await Promise.all(Array.from({ length: 4 }, (_, i) => json(['workspace', 'create', '--name', `W${i}`], env)));
    assert.equal(new Set(made.map((m) => m.id)).size, 4);
    await eventually('the cluster stopped', () => postmasterOf(dataDir) === undefined);
    const database = await openEmbedded(dataDir);
    try {
      const rows = await database.db.selectFrom('workspaces').select('id').execute();
      assert.deepEqual(rows.map((r) => r.id).sort(), made.map((m) => m.id).sort());
    } finally {
      await database.close();
    }
  });

  test('a server adopts the cluster a command started, and commands join the server’s', async () => {
    const dataDir = fresh('emb-adopt');
    const env = cliEnv(dataDir);
    // A long command holds the cluster while the server starts and joins it.
    const holder = await openEmbedded(dataDir);
    const pid = postmasterOf(dataDir);
    assert.ok(pid);
    const server = await startServer(env);
    try {
      await holder.close(); // the command leaves; the server still uses the cluster
      assert.equal(postmasterOf(dataDir), pid, 'the same postmaster runs on, adopted by the server');
      const { id } = await json(['workspace', 'create', '--name', 'Joined'], env);
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal(postmasterOf(dataDir), pid, 'a command joining and leaving does not stop the server’s cluster');
    } finally {
      await stopServer(server.child);
    }
    await eventually('the last user (the server) stopped it', () => postmasterOf(dataDir) === undefined);
  });

  test('SIGKILL of the process that started it: the next start adopts the postmaster left running', async () => {
    const dataDir = fresh('emb-kill');
    const env = cliEnv(dataDir);
    const server = await startServer(env);
    const pid = postmasterOf(dataDir);
    assert.ok(pid);
    await stopServer(server.child, 'SIGKILL');
    assert.equal(postmasterOf(dataDir), pid, 'the postmaster outlives the killed server');
    const again = await startServer(env);
    try {
      assert.equal(postmasterOf(dataDir), pid, 'adopted, not started twice');
      const res = await fetch(`${again.url}/api/v1/openapi.json`);
      assert.equal(res.status, 200);
    } finally {
      await stopServer(again.child);
    }
  });

  test('a postmaster killed with SIGKILL: the next start recovers the cluster and nothing committed is lost', async () => {
    const dataDir = fresh('emb-pmkill');
    const env = cliEnv(dataDir);
    const { id } = await json(['workspace', 'create', '--name', 'Durable'], env);
    const holder = await openEmbedded(dataDir);
    const pid = postmasterOf(dataDir)!;
    process.kill(pid, 'SIGKILL');
    await eventually('the postmaster is gone', () => !processAlive(pid));
    await holder.close(); // its sessions died with the postmaster: nothing to stop
    const listed = await json(['workspace', 'update', id, '--plan', 'growth'], env);
    assert.equal(listed.id, id);
  });

  test('a postmaster that neither answers nor exits (stopped) is replaced, and the new one holds every committed row', { timeout: 60_000 }, async () => {
    const dataDir = fresh('emb-hung');
    const env = cliEnv(dataDir);
    const { id } = await json(['workspace', 'create', '--name', 'Before the hang'], env);
    const holder = await openEmbedded(dataDir);
    const pid = postmasterOf(dataDir)!;
    process.kill(pid, 'SIGSTOP');
    try {
      const lease = await leaseCluster(dataDir, { hungAfterMs: 1_000 });
      assert.ok(!processAlive(pid), 'the hung postmaster is gone');
      assert.notEqual(postmasterOf(dataDir), undefined, 'a new one runs');
      await lease.release();
    } finally {
      if (processAlive(pid)) process.kill(pid, 'SIGCONT');
      await holder.close();
    }
    const database = await openEmbedded(dataDir);
    try {
      const rows = await database.db.selectFrom('workspaces').select('id').execute();
      assert.deepEqual(rows.map((r) => r.id), [id]);
    } finally {
      await database.close();
    }
  });

  test('a lock file naming a live process that is not our postmaster (a reused PID) does not block the start', { timeout: 30_000 }, async () => {
    const dataDir = fresh('emb-stale');
    const env = cliEnv(dataDir);
    await json(['workspace', 'create', '--name', 'First'], env);
    await eventually('stopped', () => postmasterOf(dataDir) === undefined);
    const { pgdata } = clusterLayout(dataDir);
    // A live process of the postmaster's own account that is no postmaster (nor an ancestor of
    // one, which PostgreSQL itself lets pass): the PID a container restart could hand out again.
    const account = postmasterUser();
    const other = spawn('sleep', ['600'], { stdio: 'ignore', ...(account ? { uid: account.uid, gid: account.gid } : {}) });
    try {
      writeFileSync(join(pgdata, 'postmaster.pid'), `${other.pid}\n${pgdata}\n1700000000\n5432\n\n\n  1234567   0\nready   \n`);
      const { id } = await json(['workspace', 'create', '--name', 'Second'], env);
      assert.match(id, /^[0-9a-f-]{36}$/);
    } finally {
      other.kill();
    }
  });

  test('a command killed mid-import: the import run again lands every run exactly once', async () => {
    const dataDir = fresh('emb-import');
    // Batches of 1,000 (the default is larger than the file): several commit before the kill.
    const env = { ...cliEnv(dataDir), SIGHTLINE_IMPORT_BATCH: '1000' };
    const { id: workspaceId } = await json(['workspace', 'create', '--name', 'Imports'], env);
    const { id: projectId } = await json(['project', 'create', '--workspace', workspaceId, '--name', 'Kept', '--domain', 'kept.io'], env);
    const file = join(dataDir, 'runs.jsonl');
    writeFileSync(file, runLines());
    const watcher = await openEmbedded(dataDir, { poolSize: 1 });
    try {
      const first = spawnCli(['runs', 'import', '--project', projectId, file, '--json'], env);
      await eventually('some batches committed', async () => (await totals(watcher.db, projectId)).runs > 0, 60_000);
      first.child.kill('SIGKILL');
      await first.done;
      const partial = await totals(watcher.db, projectId);
      assert.ok(partial.runs < N_RUNS, `killed before the end (${partial.runs} runs in)`);
      assert.equal(partial.okRuns, partial.runs, 'rollups hold exactly the committed runs');

      const second = await json(['runs', 'import', '--project', projectId, file], env);
      assert.equal(second.imported + second.skipped, N_RUNS);
      assert.equal(second.skipped, partial.runs, 'what the killed import committed is skipped, not counted again');
      assert.deepEqual(await totals(watcher.db, projectId), EXPECTED);
    } finally {
      await watcher.close();
    }
  });

  test('the server killed mid-import: the import finishes, the restarted server shows every run once', async () => {
    const dataDir = fresh('emb-srvkill');
    const env = { ...cliEnv(dataDir), SIGHTLINE_IMPORT_BATCH: '1000' };
    const { id: workspaceId } = await json(['workspace', 'create', '--name', 'Live'], env);
    const { id: projectId } = await json(['project', 'create', '--workspace', workspaceId, '--name', 'Kept', '--domain', 'kept.io'], env);
    const { key } = await json(['key', 'create', '--workspace', workspaceId, '--scopes', 'read', '--rate-limit', '1000'], env);
    const file = join(dataDir, 'runs.jsonl');
    writeFileSync(file, runLines());
    const server = await startServer(env);
    const watcher = await openEmbedded(dataDir, { poolSize: 1 });
    try {
      const importing = spawnCli(['runs', 'import', '--project', projectId, file, '--json'], env);
      await eventually('some batches committed', async () => (await totals(watcher.db, projectId)).runs > 0, 60_000);
      await stopServer(server.child, 'SIGKILL');
      const result = await importing.done;
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), { imported: N_RUNS, skipped: 0, rejected: 0, errors: [] });
      assert.deepEqual(await totals(watcher.db, projectId), EXPECTED);
    } finally {
      await watcher.close();
    }
    const again = await startServer(env);
    try {
      const res = await fetch(`${again.url}/api/v1/projects/${projectId}/visibility/ranking?from=${DAYS[0]}&to=${DAYS.at(-1)}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const brand = ((await res.json()) as any).data.rows.find((r: { subjectId: string }) => r.subjectId === projectId);
      assert.deepEqual([brand.sampleSize, brand.mentionRuns], [EXPECTED.okRuns, EXPECTED.brandRuns]);
    } finally {
      await stopServer(again.child);
    }
  });
});
