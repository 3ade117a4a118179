import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import type { Cadence } from './prompt-settings.ts';

export interface PromptView {
  id: string;
  text: string;
  /** The topic's name, or null. */
  topic: string | null;
  topicId: string | null;
  branded: boolean;
  locations: string[];
  /** The engines it is checked on: its own list, or every configured engine when it has none. */
  engines: EngineKey[];
  /** Whether `engines` is the prompt's own list (false: every configured engine). */
  enginesChosen: boolean;
  samples: number;
  cadence: Cadence;
  createdAt: string;
}

/**
 * A project's prompts (removed ones left out), oldest first: those added to be checked and those
 * an import created (paused until added or updated).
 */
export async function listPrompts(db: Kysely<DB>, projectId: string, configured: readonly EngineKey[]): Promise<PromptView[]> {
  const rows = await db
    .selectFrom('prompts as p')
    .leftJoin('topics as t', (join) => join.onRef('t.project_id', '=', 'p.project_id').onRef('t.id', '=', 'p.topic_id'))
    .select(['p.id', 'p.text', 't.name as topic', 'p.topic_id', 'p.branded', 'p.locations', 'p.engines', 'p.samples', 'p.cadence', 'p.created_at'])
    .where('p.project_id', '=', projectId)
    .where('p.removed_at', 'is', null)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    text: r.text,
    topic: r.topic ?? null,
    topicId: r.topic_id,
    branded: r.branded,
    locations: r.locations,
    engines: (r.engines as EngineKey[] | null) ?? [...configured],
    enginesChosen: r.engines !== null,
    samples: r.samples,
    cadence: r.cadence,
    createdAt: r.created_at.toISOString(),
  }));
}
