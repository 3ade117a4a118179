import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { AppError } from '../http/errors.ts';
import type { Outbound } from '../outbound/outbound.ts';
import { loadProjectSubjects } from '../runs/load-project-subjects.ts';
import type { RunRecord } from '../runs/parse-run-line.ts';
import { LEXICON_METHOD, scoreMentionsLexicon } from '../sentiment/lexicon-scorer.ts';
import { scoreMentionsLlm } from '../sentiment/llm-scorer.ts';
import { consumeCredits } from '../usage/consume-credits.ts';
import type { ClaimedCheck } from './claim-checks.ts';
import { ProviderError, type ProviderSettings } from './providers/provider.ts';
import type { SamplingConfig } from './providers/providers-config.ts';

export interface SentimentDeps {
  db: Kysely<DB>;
  outbound: Outbound;
  sampling: SamplingConfig;
  providers: readonly ProviderSettings[];
  now: () => Date;
}

/**
 * The sentiment of each subject a sampled answer names (operations.md section 7), outside any
 * transaction: the lexicon scorer on the sentences naming each subject (src/sentiment), or, with
 * SIGHTLINE_SENTIMENT=llm and an OpenAI key, the model, charged one `sentiment_score` action per
 * answer it scored. A failed or unpaid model score leaves the mentions unscored (never 50): the
 * scorer asked for did not score them.
 */
export async function scoreSentiment(deps: SentimentDeps, check: ClaimedCheck, answer: string): Promise<RunRecord['sentiment']> {
  const { subjects } = await loadProjectSubjects(deps.db, check.projectId);
  const { scorer, model } = deps.sampling.sentiment;
  const openai = deps.providers.find((p) => p.engine === 'chatgpt');
  if (scorer === 'llm' && openai?.apiKey !== undefined) {
    try {
      const scored = await scoreMentionsLlm(answer, subjects, { outbound: deps.outbound, apiKey: openai.apiKey, baseUrl: openai.baseUrl, model, timeoutMs: openai.timeoutMs });
      if (scored.size === 0) return undefined;
      await consumeCredits(deps.db, check.workspaceId, { action: 'sentiment_score' }, deps.now());
      return { scores: new Map([...scored].map(([id, s]) => [id, s.score])), method: `llm:${model}` };
    } catch (error) {
      if (error instanceof ProviderError || (error instanceof AppError && error.code === 'quota_exceeded')) return undefined;
      throw error;
    }
  }
  const scored = scoreMentionsLexicon(answer, subjects);
  if (scored.size === 0) return undefined;
  return { scores: new Map([...scored].map(([id, s]) => [id, s.score])), method: LEXICON_METHOD };
}
