import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp, type AppOptions } from '../src/app.ts';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { openPglite, openPostgres, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { DB } from '../src/db/types.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';

/**
 * A migrated database for one test file: PGlite in memory by default, the PostgreSQL server of
 * DATABASE_URL when set (shared by the files, so every test makes its own workspace).
 */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  const database = url ? openPostgres(url, 4) : await openPglite(undefined);
  await migrateToLatest(database.db);
  return database;
}

export const onPostgres = Boolean(process.env.DATABASE_URL);
export const redisUrl = process.env.REDIS_URL || undefined;

export interface Fixture {
  workspaceId: string;
  projectId: string;
  competitorId: string;
  readKey: string;
  readKeyId: string;
}

/** A workspace (plan `growth` unless said), a brand with one competitor, and a read key. */
export async function createFixture(db: Kysely<DB>, options: { plan?: string; name?: string } = {}): Promise<Fixture> {
  const { id: workspaceId } = await createWorkspace(db, { name: options.name ?? 'Test workspace', plan: options.plan ?? 'growth' });
  const { id: projectId } = await createProject(db, workspaceId, { name: 'Acme', domain: 'acme.com', color: '#112233' });
  const { id: competitorId } = await addCompetitor(db, projectId, { name: 'Globex', domain: 'globex.com' });
  const read = await createApiKey(db, { workspaceId, scopes: ['read'] });
  return { workspaceId, projectId, competitorId, readKey: read.key, readKeyId: read.id };
}

export function bearer(key: string): { authorization: string } {
  return { authorization: `Bearer ${key}` };
}

export async function testApp(db: Kysely<DB>, options: Partial<AppOptions> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ db, ...options });
  await app.ready();
  return app;
}

/**
 * For a suite: a migrated database and an app on it, opened before its tests and closed after.
 * Call it inside `describe`; read `db` and `app` inside hooks and tests.
 */
export function useTestApp(options: Partial<AppOptions> = {}): { readonly db: Kysely<DB>; readonly app: FastifyInstance } {
  let database: Database | undefined;
  let app: FastifyInstance | undefined;
  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db, options);
  });
  after(async () => {
    await app?.close();
    await database?.close();
  });
  return {
    get db() {
      return database!.db;
    },
    get app() {
      return app!;
    },
  };
}
