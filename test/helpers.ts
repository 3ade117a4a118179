import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp, type AppOptions } from '../src/app.ts';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { openPostgres, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { openEmbeddedTestDatabase } from './test-cluster.ts';
import type { DB } from '../src/db/types.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';

/**
 * A migrated database for one test file: a fresh copy of the migrated template on the shared
 * embedded PostgreSQL by default (test-cluster.ts), the PostgreSQL server of DATABASE_URL when set
 * (shared by the files, so every test makes its own workspace).
 */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) return openEmbeddedTestDatabase();
  const database = openPostgres(url, 4);
  await migrateToLatest(database.db);
  return database;
}

/**
 * A database of its own, for a test that reshapes tables or migrates step by step (`blank`: not
 * migrated): on the embedded cluster every test database is private already; on a server, a new
 * database is made beside DATABASE_URL's.
 */
export async function openPrivateTestDatabase(options: { blank?: boolean } = {}): Promise<Database> {
  const own = await privateDatabaseUrl();
  if (!own) return openEmbeddedTestDatabase(4, options);
  const database = openPostgres(own.url, 4);
  if (!options.blank) await migrateToLatest(database.db);
  return {
    ...database,
    async close() {
      await database.close();
      await own.drop();
    },
  };
}

/**
 * On a server (DATABASE_URL), a new empty database of its own and how to drop it; undefined on the
 * embedded one (each suite's data directory is its own already). For suites of processes whose
 * work other suites' servers would take (their workers claim every project's due checks).
 */
export async function privateDatabaseUrl(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  const url = process.env.DATABASE_URL;
  if (!url) return undefined;
  const name = `sightline_private_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${admin.escapeIdentifier(name)}`).finally(() => admin.end());
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.href,
    async drop() {
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`drop database if exists ${dropper.escapeIdentifier(name)} with (force)`).finally(() => dropper.end());
    },
  };
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
 * Call it inside `describe`; read `db` and `app` inside hooks and tests. `ownDatabase`: on a
 * server, a database of its own, for a suite whose data would reach other suites' work (the
 * fan-out publishes every workspace's events; a sampling server's scheduler samples every
 * project's daily prompts).
 */
export function useTestApp(options: Partial<AppOptions> = {}, where: { ownDatabase?: boolean } = {}): { readonly db: Kysely<DB>; readonly app: FastifyInstance } {
  let database: Database | undefined;
  let app: FastifyInstance | undefined;
  before(async () => {
    database = where.ownDatabase ? await openPrivateTestDatabase() : await openTestDatabase();
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
