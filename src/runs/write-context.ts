import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';
import { sameSubjects, type Subject } from './subjects.ts';
import type { CitationStatus } from './vocabulary.ts';

/** A cited page as stored: its id, owner and status, and when that status was observed (µs since the epoch). */
export interface PageState {
  id: string;
  subjectId: string | null;
  status: CitationStatus;
  statusAtUs: number;
}

/**
 * What a writer of a project's runs knows of it between batches: the subjects it tracks, and the
 * ids (and page states) of the topics, prompts and pages its runs named. Every entry is confirmed:
 * read from the database, or written by a batch that committed. A batch is prepared from it
 * outside the project lock (prepare-batch.ts) and checked under the lock (record-runs.ts):
 * the project's data version must still be the one the context last saw, or it is read afresh.
 * Ids for names and pages not seen yet are minted once and kept until they are confirmed.
 */
export interface WriteContext {
  workspaceId: string;
  projectId: string;
  /** The brand first, then the competitors in the order they were added. */
  subjects: readonly Subject[];
  /** Engine ids by key. */
  engines: ReadonlyMap<string, string>;
  /** `projects.data_version` the entries reflect; null when they may be stale. */
  version: string | null;
  /** Moves whenever entries are dropped or corrected: batches prepared before must be prepared again. */
  generation: number;
  /** Topic ids by lower-cased name. */
  topics: Map<string, string>;
  /** Prompt ids by text. */
  prompts: Map<string, string>;
  /** Pages by normalised URL. */
  pages: Map<string, PageState>;
  /** Ids made up for names and pages the database did not hold when last looked at (key: `t:`, `p:` or `u:` and the name). */
  minted: Map<string, string>;
  /** Batches prepared so far (numbering them), and the number of the last one written: a batch prepared on top of another is valid only if that one was written as it was. */
  prepared: number;
  lastCommitted: number;
}

/** Entries kept at most; beyond, the maps start again (a later batch reads what it needs). */
const MAX_ENTRIES = 200_000;

/** The context of a project, nothing cached yet. Throws NotFoundError for an unknown project. */
export async function loadWriteContext(db: Kysely<DB>, projectId: string): Promise<WriteContext> {
  const context: WriteContext = {
    workspaceId: '',
    projectId,
    subjects: [],
    engines: new Map(),
    version: null,
    generation: 0,
    topics: new Map(),
    prompts: new Map(),
    pages: new Map(),
    minted: new Map(),
    prepared: 0,
    lastCommitted: 0,
  };
  await refreshContext(db, context);
  return context;
}

/**
 * Reads the project again (subjects, engines, data version) and drops every cached entry: what
 * another writer changed is then read from the database as batches need it.
 */
export async function refreshContext(db: Kysely<DB>, context: WriteContext): Promise<void> {
  const rows = await sql<{
    kind: 'project' | 'competitor' | 'engine';
    id: string;
    workspace_id: string | null;
    name: string;
    domain: string | null;
    aliases: string[] | null;
    data_version: string | null;
  }>`
    select 'project' as kind, id, workspace_id, name, domain, aliases, data_version::text, 0 as n, created_at from projects where id = ${context.projectId}
    union all
    select 'competitor', id, null, name, domain, aliases, null, 1, created_at from competitors where project_id = ${context.projectId}
    union all
    select 'engine', id, null, key, null, null, null, 2, null from engines
    order by n, created_at, id`.execute(db);
  const project = rows.rows.find((r) => r.kind === 'project');
  if (!project) throw new NotFoundError(`no project ${context.projectId}`);
  context.workspaceId = project.workspace_id!;
  const subjects = rows.rows
    .filter((r) => r.kind !== 'engine')
    .map((r) => ({ type: r.kind === 'project' ? ('brand' as const) : ('competitor' as const), id: r.id, name: r.name, domain: r.domain!, aliases: r.aliases ?? [] }));
  // The same list object while the subjects are the same: what is derived from it is kept by it.
  if (!sameSubjects(context.subjects, subjects)) context.subjects = subjects;
  context.engines = new Map(rows.rows.filter((r) => r.kind === 'engine').map((r) => [r.name, r.id]));
  context.version = project.data_version;
  forgetEntries(context);
}

/** Drops every cached entry (after a failed batch, whose minted ids may or may not have been written). */
export function forgetEntries(context: WriteContext): void {
  context.generation++;
  context.topics.clear();
  context.prompts.clear();
  context.pages.clear();
  context.minted.clear();
}

/** Keeps the maps bounded: called between batches. */
export function trimEntries(context: WriteContext): void {
  if (context.pages.size + context.prompts.size + context.topics.size + context.minted.size > MAX_ENTRIES) forgetEntries(context);
}
