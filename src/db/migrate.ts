import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as foundation from './migrations/2026-11-22-0001-foundation.ts';
import * as runs from './migrations/2026-11-22-0002-runs.ts';
import * as rollupCube from './migrations/2026-11-22-0003-rollup-cube.ts';
import * as subjectCitations from './migrations/2026-11-22-0004-subject-citations.ts';
import * as changeEvents from './migrations/2026-11-22-0005-change-events.ts';
import * as traffic from './migrations/2026-11-22-0006-traffic.ts';
import * as webhooks from './migrations/2026-11-22-0007-webhooks.ts';
import * as trafficBounds from './migrations/2026-11-23-0008-traffic-bounds.ts';
import * as trust from './migrations/2026-11-23-0009-trust.ts';
import * as scale from './migrations/2026-11-24-0010-scale.ts';
import * as sampling from './migrations/2026-11-25-0011-sampling.ts';
import * as verification from './migrations/2026-11-26-0012-verification.ts';
import * as accounts from './migrations/2026-11-27-0013-accounts.ts';
import * as mcp from './migrations/2026-11-28-0014-mcp.ts';

/** Every migration, in order. A static list: no directory scanning, works the same everywhere. */
const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22-0001-foundation': foundation,
  '2026-11-22-0002-runs': runs,
  '2026-11-22-0003-rollup-cube': rollupCube,
  '2026-11-22-0004-subject-citations': subjectCitations,
  '2026-11-22-0005-change-events': changeEvents,
  '2026-11-22-0006-traffic': traffic,
  '2026-11-22-0007-webhooks': webhooks,
  '2026-11-23-0008-traffic-bounds': trafficBounds,
  '2026-11-23-0009-trust': trust,
  '2026-11-24-0010-scale': scale,
  '2026-11-25-0011-sampling': sampling,
  '2026-11-26-0012-verification': verification,
  '2026-11-27-0013-accounts': accounts,
  '2026-11-28-0014-mcp': mcp,
};

/** The migrations' names, in order. */
export const MIGRATION_NAMES = Object.keys(MIGRATIONS);

const provider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};

/** Brings the schema to a named migration (tests of a migration on data of the schema before it). */
export async function migrateTo(db: Kysely<any>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Brings the schema to the latest version; safe to run from several processes at once. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
