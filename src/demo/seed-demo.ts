import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createApiKey } from '../auth/create-api-key.ts';
import { addCompetitor } from '../projects/add-competitor.ts';
import { createProject } from '../projects/create-project.ts';
import { createWorkspace } from '../workspaces/create-workspace.ts';
import { randomUUID } from 'node:crypto';
import { importRuns } from '../runs/import-runs.ts';
import { utcDay } from '../usage/calendar.ts';
import { demoRunLines } from './demo-runs.ts';

export interface DemoSeed {
  workspaceId: string;
  projectId: string;
  keys: { read: string; ingest: string };
}

/**
 * The demo brand, its three rivals, a few topics, 28 days of runs (demo-runs.ts) and two keys: `read` for the whole workspace and
 * `ingest` bound to the brand (ingest keys post to their own brand only). Into `workspaceId` when
 * given, else into a new workspace.
 */
export async function seedDemo(
  db: Kysely<DB>,
  options: { workspaceId?: string | undefined; now?: Date | undefined } = {},
): Promise<DemoSeed> {
  const workspaceId = options.workspaceId ?? (await createWorkspace(db, { name: 'Demo workspace', plan: 'growth' })).id;
  const { id: projectId } = await createProject(db, workspaceId, {
    name: 'Acme CRM',
    domain: 'acme.com',
    color: '#2563eb',
    aliases: ['Acme', 'AcmeCRM'],
  });
  const rivals = [
    { name: 'Globex', domain: 'globex.com', color: '#dc2626', aliases: ['Globex CRM'] },
    { name: 'Initech', domain: 'initech.com', color: '#16a34a', aliases: [] },
    { name: 'Umbrella', domain: 'umbrella.io', color: '#9333ea', aliases: ['Umbrella Sales'] },
  ];
  for (const rival of rivals) await addCompetitor(db, projectId, rival);
  await db
    .insertInto('topics')
    .values(
      ['CRM software', 'Sales automation', 'Customer support'].map((name) => ({
        id: randomUUID(),
        workspace_id: workspaceId,
        project_id: projectId,
        name,
      })),
    )
    .execute();
  await importRuns(db, projectId, demoRunLines(projectId, utcDay(options.now ?? new Date())));
  const read = await createApiKey(db, { workspaceId, scopes: ['read'], name: 'demo read' });
  const ingest = await createApiKey(db, { workspaceId, projectId, scopes: ['ingest'], name: 'demo ingest' });
  return { workspaceId, projectId, keys: { read: read.key, ingest: ingest.key } };
}

/** Whether the database holds no workspace yet: the only time `npm start` seeds the demo. */
export async function isEmpty(db: Kysely<DB>): Promise<boolean> {
  const row = await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}
