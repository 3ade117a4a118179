/**
 * Throughput and latency of `GET /api/v1/projects` (read key, migrated database seeded with the demo)
 * beside a bare Fastify route measured in the same run. Servers run in this process; the load
 * generator (bench/lib/load.ts) runs in its own. See bench/README.md.
 *
 *   npm run bench                       # everything
 *   node bench/projects-endpoint.ts     # this one
 *   DATABASE_URL=postgres://... adds a run on a fresh database on that PostgreSQL server (dropped after)
 *
 * Sightline runs on the embedded PostgreSQL 18 (a fresh data dir under .tmp/, stopped and deleted
 * at the end) and, when DATABASE_URL is set, on that server.
 */
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { openEmbedded, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { DB } from '../src/db/types.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { buildBareApp } from './lib/bare-server.ts';
import { benchDataDir, removeDataDir, stopLeftoverPostmaster } from './lib/cluster.ts';
import { describeLoad, loadSettings, runLoadProcess, table, writeJsonOut, type LoadSettings } from './lib/common.ts';
import type { LoadResult } from './lib/load.ts';
import { openScratchPostgres, serverVersion } from './lib/scratch-db.ts';

export const PROJECTS_PATH = '/api/v1/projects';

export interface EndpointRun {
  name: string;
  path: string;
  result: LoadResult;
}

export interface ProjectsBenchResult {
  settings: LoadSettings;
  bare: EndpointRun;
  projects: EndpointRun[];
  /** bare rps / projects rps, per projects run. */
  ratios: Record<string, number>;
}

async function measure(app: FastifyInstance, name: string, path: string, settings: LoadSettings, headers: Record<string, string> = {}): Promise<EndpointRun> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    // One request first: a benchmark of error responses would be worthless.
    const check = await fetch(`${address}${path}`, { headers });
    const body = await check.text();
    if (check.status !== 200) throw new Error(`${name}: GET ${path} answered ${check.status}: ${body}`);
    const result = await runLoadProcess({ url: `${address}${path}`, headers, ...settings });
    if (result.non200 > 0 || result.errors > 0) {
      console.warn(`warning: ${name}: ${result.non200} non-200 responses and ${result.errors} errors (${result.firstError ?? ''}): ${JSON.stringify(result.statuses)}`);
    }
    return { name, path, result };
  } finally {
    await app.close();
  }
}

/** A read key with a limit high enough for the benchmark, in a fresh demo workspace. */
async function benchKey(db: Kysely<DB>): Promise<{ workspaceId: string; keyId: string; key: string }> {
  const demo = await seedDemo(db);
  const key = await createApiKey(db, { workspaceId: demo.workspaceId, scopes: ['read'], rateLimit: 1_000_000, name: 'bench read' });
  return { workspaceId: demo.workspaceId, keyId: key.id, key: key.key };
}

async function measureProjects(database: Database, name: string, settings: LoadSettings): Promise<{ run: EndpointRun; workspaceId: string }> {
  await migrateToLatest(database.db);
  const { workspaceId, key } = await benchKey(database.db);
  const app = await buildApp({ db: database.db });
  const run = await measure(app, name, PROJECTS_PATH, settings, { authorization: `Bearer ${key}` });
  return { run, workspaceId };
}

export async function runProjectsBench(settings: LoadSettings = loadSettings(), log: (line: string) => void = console.log): Promise<ProjectsBenchResult> {
  log(`projects endpoint: ${describeLoad(settings)}`);

  log('  measuring bare Fastify GET /bare ...');
  const bare = await measure(buildBareApp(), 'bare Fastify', '/bare', settings);

  const projects: EndpointRun[] = [];
  {
    log('  measuring GET /api/v1/projects on the embedded PostgreSQL (fresh data dir under .tmp/) ...');
    const dir = benchDataDir('projects');
    try {
      const database = await openEmbedded(dir);
      try {
        const { major } = await serverVersion(database.db);
        projects.push((await measureProjects(database, `projects, embedded PostgreSQL ${major}`, settings)).run);
      } finally {
        await database.close();
      }
    } finally {
      await stopLeftoverPostmaster(dir);
      removeDataDir(dir);
    }
  }
  const scratch = await openScratchPostgres('projects');
  if (scratch) {
    log(`  measuring GET /api/v1/projects on ${scratch.where} ...`);
    try {
      projects.push((await measureProjects(scratch.database, `projects, ${scratch.label}`, settings)).run);
    } finally {
      await scratch.close();
    }
  } else {
    log('  PostgreSQL server: skipped (DATABASE_URL is not set)');
  }

  const ratios: Record<string, number> = {};
  for (const run of projects) ratios[run.name] = Math.round((bare.result.rps / run.result.rps) * 100) / 100;
  return { settings, bare, projects, ratios };
}

export function formatProjectsBench(r: ProjectsBenchResult): string {
  const row = (run: EndpointRun, ratio: number | string) => [
    run.name,
    `GET ${run.path}`,
    run.result.requests,
    run.result.rps,
    run.result.p50Ms,
    run.result.p99Ms,
    run.result.non200 + run.result.errors,
    ratio,
  ];
  return table(
    ['server', 'route', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'failed', 'bare/this'],
    [row(r.bare, 1), ...r.projects.map((run) => row(run, r.ratios[run.name] ?? '-'))],
  );
}

if (import.meta.main) {
  const result = await runProjectsBench();
  console.log(`\n${formatProjectsBench(result)}`);
  writeJsonOut(result);
}
