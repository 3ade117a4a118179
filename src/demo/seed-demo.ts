import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { createApiKey } from '../auth/create-api-key.ts';
import { detectPendingIn } from '../changes/detect-changes.ts';
import { insertCompetitor } from '../projects/add-competitor.ts';
import { createProject } from '../projects/create-project.ts';
import { parseRunLine, type RunRecord } from '../runs/parse-run-line.ts';
import { recordRunsIn } from '../runs/record-runs.ts';
import { createWorkspace } from '../workspaces/create-workspace.ts';
import { demoProvenance, demoRunLines } from './demo-runs.ts';
import { createUser } from '../accounts/create-user.ts';

export interface DemoSeed {
  workspaceId: string;
  projectId: string;
  keys: { read: string; ingest: string };
  /** The demo sign-in for the app: made by the start-up seeding only. */
  signIn?: { email: string; password: string };
}

/** The demo workspace's owner, for the app. */
export const DEMO_EMAIL = 'demo@sightline.local';

/** Held while the start-up seeding decides and seeds: two instances starting at once seed once. */
const SEED_LOCK = 0x5345_4544;

/**
 * The demo brand, its three rivals, a few topics, 28 days of runs (demo-runs.ts) and two keys:
 * `read` for the whole workspace and `ingest` bound to the brand. Into `workspaceId` when given,
 * else into a new workspace. All of it in one transaction: a crash leaves no half-seeded demo.
 */
export async function seedDemo(db: Kysely<DB>, options: { workspaceId?: string | undefined; now?: Date | undefined } = {}): Promise<DemoSeed> {
  return db.transaction().execute((tx) => seedIn(tx, options.workspaceId, options.now ?? new Date()));
}

/**
 * The start-up seeding: the demo on an empty database (no workspace yet), else nothing
 * (undefined). Decided and done in one transaction holding a lock, so of several instances
 * starting at once on an empty database exactly one seeds, and prints the keys.
 */
export async function seedDemoIfEmpty(db: Kysely<DB>, now: Date = new Date()): Promise<DemoSeed | undefined> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${SEED_LOCK})`.execute(tx);
    const any = await tx.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
    if (any) return undefined;
    const seeded = await seedIn(tx, undefined, now);
    const signIn = { email: DEMO_EMAIL, password: randomBytes(12).toString('base64url') };
    await createUser(tx, { workspaceId: seeded.workspaceId, email: signIn.email, password: signIn.password, role: 'owner' });
    return { ...seeded, signIn };
  });
}

async function seedIn(tx: Transaction<DB>, workspaceId: string | undefined, now: Date): Promise<DemoSeed> {
  const workspace = workspaceId ?? (await createWorkspace(tx, { name: 'Demo workspace', plan: 'growth' })).id;
  const { id: projectId } = await createProject(tx, workspace, { name: 'Acme CRM', domain: 'acme.com', color: '#2563eb', aliases: ['Acme', 'AcmeCRM'] });
  for (const rival of [
    { name: 'Globex', domain: 'globex.com', color: '#dc2626', aliases: ['Globex CRM'] },
    { name: 'Initech', domain: 'initech.com', color: '#16a34a', aliases: [] },
    { name: 'Umbrella', domain: 'umbrella.io', color: '#9333ea', aliases: ['Umbrella Sales'] },
  ]) {
    await insertCompetitor(tx, projectId, rival);
  }
  await tx
    .insertInto('topics')
    .values(['CRM software', 'Sales automation', 'Customer support'].map((name) => ({ id: randomUUID(), workspace_id: workspace, project_id: projectId, name })))
    .execute();
  const records: RunRecord[] = [];
  for (const line of demoRunLines(projectId, now)) {
    const parsed = parseRunLine(line, now);
    if (!parsed.ok) throw new Error(`demo run refused: ${parsed.message}`);
    records.push({ ...parsed.record, provenance: demoProvenance(parsed.record) });
  }
  for (let i = 0; i < records.length; i += 500) await recordRunsIn(tx, projectId, records.slice(i, i + 500));
  await detectPendingIn(tx, projectId, now);
  const read = await createApiKey(tx, { workspaceId: workspace, scopes: ['read'], name: 'demo read' });
  const ingest = await createApiKey(tx, { workspaceId: workspace, projectId, scopes: ['ingest'], name: 'demo ingest' });
  return { workspaceId: workspace, projectId, keys: { read: read.key, ingest: ingest.key } };
}
