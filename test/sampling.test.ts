import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/types.ts';
import { loadSamplingConfig, type SamplingConfig } from '../src/sampling/providers/providers-config.ts';
import { ENGINE_ADAPTERS } from '../src/sampling/providers/adapters.ts';
import { sampleNow } from '../src/sampling/sample-now.ts';
import { addPrompt } from '../src/prompts/add-prompt.ts';
import { removePrompt } from '../src/prompts/remove-prompt.ts';
import { claimChecks } from '../src/sampling/claim-checks.ts';
import { finishCheck } from '../src/sampling/finish-check.ts';
import { holdCredits } from '../src/sampling/hold-credits.ts';
import { startSampler, type SamplerDeps } from '../src/sampling/sampler.ts';
import { scheduleDue } from '../src/sampling/schedule-due.ts';
import { getUsage } from '../src/usage/get-usage.ts';
import { recordLedgerEntry } from '../src/usage/record-ledger-entry.ts';
import { updateWorkspace } from '../src/workspaces/update-workspace.ts';
import { createFixture, openTestDatabase } from './helpers.ts';
import { startFakeProvider, type FakeProvider, type SeenRequest } from './fakes/fake-provider.ts';
import type { Database } from '../src/db/database.ts';
import { createOutbound } from '../src/outbound/outbound.ts';
import { parseResolveMap } from '../src/outbound/resolve-map.ts';

/** A SerpApi reply with an AI Overview that names `names` and cites `links`. */
function overview(names: string[], links: string[]) {
  return {
    search_metadata: { status: 'Success' },
    ai_overview: {
      text_blocks: [{ type: 'paragraph', snippet: `Good options are ${names.join(' and ')}.`, reference_indexes: links.map((_, i) => i) }],
      references: links.map((link, index) => ({ title: link, link, source: new URL(link).hostname, index })),
    },
  };
}

const query = (r: SeenRequest) => new URL(r.url, 'http://x').searchParams;

describe('sampling: the service asks the engines itself', () => {
  let database: Database;
  let db: Kysely<DB>;
  let serp: FakeProvider;
  let sampling: SamplingConfig;
  let deps: SamplerDeps;
  const errors: unknown[] = [];

  before(async () => {
    database = await openTestDatabase();
    db = database.db;
    serp = await startFakeProvider('serpapi.test');
    sampling = loadSamplingConfig({ SERPAPI_API_KEY: 'serp-key', SERPAPI_BASE_URL: serp.origin, SIGHTLINE_PROVIDER_TIMEOUT_MS: '2000' });
    deps = { db, outbound: serp.outbound(), sampling, providers: sampling.providers, adapters: ENGINE_ADAPTERS, now: () => new Date(), onError: (e) => errors.push(e) };
  });
  after(async () => {
    await deps.outbound.close();
    await serp.close();
    await database.close();
  });

  test('a cycle now: each check asked once, answers recorded as runs with provenance, charged, counted', async () => {
    const fx = await createFixture(db);
    await addPrompt(db, fx.projectId, { text: 'best crm for startups', engines: ['google_ai_overviews', 'copilot', 'chatgpt'], locations: ['US', 'Berlin, Germany'], samples: 2 });
    serp.fallback = (r) => {
      const engine = query(r).get('engine');
      return { json: engine === 'bing_copilot' ? { search_metadata: { status: 'Success' }, text_blocks: [{ type: 'paragraph', snippet: 'Globex leads.' }], references: [] } : overview(['Acme', 'Globex'], ['https://acme.com/pricing', 'https://review.example.org/crm']) };
    };
    const before = serp.requests.length;
    const result = await sampleNow(deps, fx.projectId, undefined, true);
    // chatgpt has no key here: its 2 locations x 2 samples are skipped, never sent, never charged.
    assert.deepEqual(result, { checks: 12, ok: 8, failed: 0, noAnswer: 0, skipped: 4, creditsCharged: 8 });
    assert.equal(serp.requests.length - before, 8);
    const sent = serp.requests.slice(before).map(query);
    assert.ok(sent.every((q) => q.get('api_key') === 'serp-key' && q.get('q') === 'best crm for startups'));
    const runs = await db.selectFrom('runs').selectAll().where('project_id', '=', fx.projectId).execute();
    assert.equal(runs.length, 8);
    assert.ok(runs.every((r) => r.status === 'ok' && r.provider === 'serpapi' && r.surface === 'serp' && r.check_id === r.id && r.latency_ms !== null));
    const aio = runs.filter((r) => r.model === 'google');
    assert.equal(aio.length, 4);
    assert.ok(aio.every((r) => r.mention_subject_ids.length === 2 && r.cited_url_ids.length === 2 && r.source_urls!.length === 2));
    // Mentions found in the answer are scored by the lexicon scorer, on the sentences naming them.
    assert.ok(runs.every((r) => r.sentiment_method === 'lexicon:vader-sentiment@1.1.3' && r.mention_sentiments.every((x) => typeof x === 'number' && x >= 0 && x <= 100)));
    const usage = await getUsage(db, fx.workspaceId, new Date());
    assert.equal(usage.credits.consumed, 8);
    const ledger = await db.selectFrom('credit_ledger').select(['credits', 'run_id', 'engine_key']).where('workspace_id', '=', fx.workspaceId).where('kind', '=', 'consume').execute();
    assert.equal(ledger.length, 8);
    assert.deepEqual(new Set(ledger.map((l) => l.run_id)), new Set(runs.map((r) => r.id)));

    // The same cycle again today: every identity ran already, so nothing is asked or charged twice.
    const again = await sampleNow(deps, fx.projectId, undefined, true);
    assert.deepEqual(again, { checks: 12, ok: 0, failed: 0, noAnswer: 0, skipped: 12, creditsCharged: 0 });
    assert.equal(serp.requests.length - before, 8);
    assert.equal((await getUsage(db, fx.workspaceId, new Date())).credits.consumed, 8);
  });

  test('outcomes: no AI answer is its own record and charged; a refused key fails, uncharged; a rate limit is retried', async () => {
    const fx = await createFixture(db);
    await addPrompt(db, fx.projectId, { text: 'crm without an overview', engines: ['google_ai_overviews'] });
    await addPrompt(db, fx.projectId, { text: 'crm with a bad key', engines: ['google_ai_mode'] });
    await addPrompt(db, fx.projectId, { text: 'crm under a rate limit', engines: ['copilot'] });
    let limited = 0;
    serp.fallback = (r) => {
      const q = query(r);
      if (q.get('q') === 'crm without an overview') return { json: { search_metadata: { status: 'Success' }, organic_results: [] } };
      if (q.get('q') === 'crm with a bad key') return { status: 401, json: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' } };
      if (limited++ < 2) return { status: 429, headers: { 'retry-after': '0' }, json: { error: 'Too many requests' } };
      return { json: { search_metadata: { status: 'Success' }, text_blocks: [{ type: 'paragraph', snippet: 'Acme is popular.' }], references: [] } };
    };
    const result = await sampleNow(deps, fx.projectId, undefined, true);
    assert.deepEqual(result, { checks: 3, ok: 1, failed: 1, noAnswer: 1, skipped: 0, creditsCharged: 2 });
    const runs = await db.selectFrom('runs').select(['status', 'reason', 'engine_id', 'prompt_id']).where('project_id', '=', fx.projectId).execute();
    assert.deepEqual(runs.map((r) => r.status).sort(), ['failed', 'no_answer', 'ok']);
    assert.match(runs.find((r) => r.status === 'failed')!.reason!, /^auth:/);
    const checks = await db.selectFrom('checks').select(['outcome', 'attempts', 'credits']).where('project_id', '=', fx.projectId).execute();
    assert.deepEqual(checks.map((c) => `${c.outcome}:${c.attempts}:${c.credits}`).sort(), ['failed:1:0', 'no_answer:1:1', 'ok:3:1']);
    // Neither the failed nor the unanswered run enters a sample.
    const rollup = await db.selectFrom('run_rollup').select(['ok_runs', 'failed_runs']).where('project_id', '=', fx.projectId).where('grouping', '=', 15).execute();
    assert.deepEqual(rollup.map((r) => [r.ok_runs, r.failed_runs]), [[1, 1]]);
  });

  test('credits: enforced, a check the balance cannot pay is skipped and never sent; concurrent checks never overdraw', async () => {
    const fx = await createFixture(db, { plan: 'free' });
    await updateWorkspace(db, fx.workspaceId, { creditsEnforced: true });
    const available = (await getUsage(db, fx.workspaceId, new Date())).credits.available;
    // Spend all but 5 credits (as earlier work would have).
    await db.transaction().execute((tx) => recordLedgerEntry(tx, { workspaceId: fx.workspaceId, kind: 'consume', credits: available - 5, day: new Date().toISOString().slice(0, 10), action: 'agent_chat' }));
    assert.equal((await getUsage(db, fx.workspaceId, new Date())).credits.available, 5);
    await addPrompt(db, fx.projectId, { text: 'crm on a budget', engines: ['google_ai_overviews'], samples: 12 });
    serp.fallback = () => ({ json: overview(['Acme'], ['https://acme.com/']), delayMs: 30 });
    const before = serp.requests.length;
    const result = await sampleNow({ ...deps, sampling: { ...sampling, instanceConcurrency: 12, providerConcurrency: 12 } }, fx.projectId, undefined, true);
    assert.deepEqual(result, { checks: 12, ok: 5, failed: 0, noAnswer: 0, skipped: 7, creditsCharged: 5 });
    assert.equal(serp.requests.length - before, 5, 'a skipped check is never sent');
    const usage = await getUsage(db, fx.workspaceId, new Date());
    assert.equal(usage.credits.available, 0);
    assert.equal(usage.credits.consumed, available);
    const reasons = await db.selectFrom('checks').select('reason').where('project_id', '=', fx.projectId).where('outcome', '=', 'skipped').execute();
    assert.ok(reasons.every((r) => /^quota_exceeded: not enough credits/.test(r.reason!)));
  });

  test('the daily ceiling stops spending, enforced or not', async () => {
    const fx = await createFixture(db);
    await updateWorkspace(db, fx.workspaceId, { dailyCeilingUsd: 0.03 });
    await addPrompt(db, fx.projectId, { text: 'crm under a ceiling', engines: ['google_ai_overviews'], samples: 5 });
    serp.fallback = () => ({ json: overview(['Acme'], []) });
    const result = await sampleNow(deps, fx.projectId, undefined, true);
    assert.equal(result.ok, 3);
    assert.equal(result.skipped, 2);
    assert.equal((await getUsage(db, fx.workspaceId, new Date())).dailySpend.spentUsd, 0.03);
  });

  test('at most once: two workers on one queue, and a worker that dies holding claims', async () => {
    const fx = await createFixture(db);
    await addPrompt(db, fx.projectId, { text: 'crm for two workers', engines: ['google_ai_overviews', 'google_ai_mode', 'copilot'], samples: 6 });
    serp.fallback = () => ({ json: overview(['Acme'], ['https://acme.com/a']), delayMs: 20 });
    // Queue the cycle without running it, then let two workers race for it.
    const queued = await sampleNow(deps, fx.projectId, undefined, false);
    assert.equal(queued.checks, 18);
    // A worker that claims three checks and dies: its claims lapse, and another worker finishes them.
    const clock = { now: new Date() };
    const dead = await claimChecks(db, { slots: 3, providers: ['serpapi'], perProvider: 10, leaseMs: 60_000, now: clock.now });
    assert.equal(dead.length, 3);
    for (const hold of await holdCredits(db, dead, clock.now)) assert.ok('held' in hold);
    const later = () => new Date(Date.now() + 120_000);
    const one = startSampler({ ...deps, now: later }, { pollMs: 20 });
    const two = startSampler({ ...deps, now: later }, { pollMs: 20 });
    try {
      for (let i = 0; i < 200; i++) {
        const left = await db.selectFrom('checks').select('id').where('project_id', '=', fx.projectId).where('state', '<>', 'done').execute();
        if (left.length === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await one.stop();
      await two.stop();
    }
    // The dead worker comes back and tries to record: it no longer holds the claims.
    for (const c of dead) {
      const late = await finishCheck(db, c, { kind: 'skipped', reason: 'late' }, new Date());
      assert.deepEqual(late, { recorded: false });
    }
    const runs = await db.selectFrom('runs').select('id').where('project_id', '=', fx.projectId).execute();
    assert.equal(runs.length, 18);
    const charges = await db.selectFrom('credit_ledger').select(({ fn }) => fn.countAll<number>().as('n')).where('workspace_id', '=', fx.workspaceId).where('kind', '=', 'consume').executeTakeFirstOrThrow();
    assert.equal(Number(charges.n), 18);
    assert.equal((await getUsage(db, fx.workspaceId, new Date())).credits.consumed, 6 * 1 + 6 * 1.5 + 6 * 1);
  });

  test('the scheduler: a cycle a day per prompt, spread over the rest of the day, made once; weekly and paused prompts', async () => {
    const fx = await createFixture(db);
    const { id: daily } = await addPrompt(db, fx.projectId, { text: 'scheduled daily', engines: ['google_ai_overviews', 'copilot'], samples: 3 });
    const { id: weekly } = await addPrompt(db, fx.projectId, { text: 'scheduled weekly', engines: ['copilot'], cadence: 'weekly' });
    await addPrompt(db, fx.projectId, { text: 'never scheduled', engines: ['copilot'], cadence: 'paused' });
    const noon = new Date('2031-03-03T12:00:00Z');
    const configured = ['google_ai_overviews', 'google_ai_mode', 'copilot'] as const;
    await scheduleDue(db, [...configured], noon);
    const checks = await db.selectFrom('checks').select(['prompt_id', 'run_after', 'day']).where('project_id', '=', fx.projectId).where('day', '=', '2031-03-03').execute();
    assert.equal(checks.filter((c) => c.prompt_id === daily).length, 6);
    assert.equal(checks.filter((c) => c.prompt_id === weekly).length, 1);
    assert.ok(checks.every((c) => c.run_after >= noon && c.run_after < new Date('2031-03-04T00:00:00Z')));
    assert.ok(new Set(checks.map((c) => c.run_after.getTime())).size >= 6, 'spread, not one burst');
    // Another tick (or another instance) the same day adds nothing.
    await scheduleDue(db, [...configured], new Date('2031-03-03T12:01:00Z'));
    assert.equal((await db.selectFrom('checks').select('id').where('project_id', '=', fx.projectId).execute()).length, 7);
    // The next day: the daily prompt again; the weekly one only a week after its last cycle.
    await scheduleDue(db, [...configured], new Date('2031-03-04T00:00:30Z'));
    await scheduleDue(db, [...configured], new Date('2031-03-10T00:00:30Z'));
    const byDay = await db.selectFrom('checks').select(['prompt_id', 'day']).where('project_id', '=', fx.projectId).execute();
    assert.deepEqual(byDay.filter((c) => c.prompt_id === weekly).map((c) => c.day).sort(), ['2031-03-03', '2031-03-10']);
    assert.equal(byDay.filter((c) => c.prompt_id === daily).length, 18);
    // A removed prompt's queued checks go, and it is never scheduled again.
    await removePrompt(db, daily, new Date('2031-03-10T01:00:00Z'));
    await scheduleDue(db, [...configured], new Date('2031-03-11T00:00:30Z'));
    const left = await db.selectFrom('checks').select(['day', 'state']).where('project_id', '=', fx.projectId).where('prompt_id', '=', daily).execute();
    assert.ok(left.every((c) => c.day < '2031-03-10'), 'none on or after the removal');
  });

  test('SIGHTLINE_SENTIMENT=llm: the model scores the named subjects, billed as sentiment_score; a failed score leaves them unscored', async () => {
    const openai = await startFakeProvider('openai.test');
    const outbound = createOutbound({ userAgent: 'x', resolve: parseResolveMap(`${serp.resolveEntry},${openai.resolveEntry}`) });
    try {
      const config = loadSamplingConfig({ SERPAPI_API_KEY: 'serp-key', SERPAPI_BASE_URL: serp.origin, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${openai.origin}/v1`, SIGHTLINE_SENTIMENT: 'llm', SIGHTLINE_SENTIMENT_MODEL: 'gpt-test' });
      assert.deepEqual(config.sentiment, { scorer: 'llm', model: 'gpt-test' });
      const fx = await createFixture(db);
      await addPrompt(db, fx.projectId, { text: 'crm scored by a model', engines: ['copilot'], samples: 2 });
      serp.fallback = () => ({ json: { search_metadata: { status: 'Success' }, text_blocks: [{ type: 'paragraph', snippet: 'Acme is excellent. Globex is slow.' }], references: [] } });
      const scores = { output: [{ type: 'message', content: [{ type: 'output_text', text: JSON.stringify({ scores: [{ subject: 'Acme', score: 91, reason: 'praised' }, { subject: 'Globex', score: 22, reason: 'slow' }] }) }] }], model: 'gpt-test' };
      openai.replies.push({ json: scores }, { status: 401, json: { error: { message: 'bad key' } } });
      const result = await sampleNow({ ...deps, outbound, sampling: { ...config, instanceConcurrency: 1 }, providers: config.providers }, fx.projectId, undefined, true);
      assert.equal(result.ok, 2);
      assert.equal(openai.requests.length, 2);
      assert.equal((openai.requests[0]!.body as { model: string }).model, 'gpt-test');
      const runs = await db.selectFrom('runs').select(['mention_subject_ids', 'mention_sentiments', 'sentiment_method']).where('project_id', '=', fx.projectId).orderBy('ran_at').execute();
      const scored = runs.find((r) => r.sentiment_method !== null)!;
      assert.equal(scored.sentiment_method, 'llm:gpt-test');
      assert.deepEqual(scored.mention_sentiments, scored.mention_subject_ids.map((id) => (id === fx.projectId ? 91 : 22)));
      const unscored = runs.find((r) => r.sentiment_method === null)!;
      assert.deepEqual(unscored.mention_sentiments, [null, null], 'never 50');
      const ledger = await db.selectFrom('credit_ledger').select(['action', 'credits']).where('workspace_id', '=', fx.workspaceId).where('action', '=', 'sentiment_score').execute();
      assert.deepEqual(ledger.map((l) => l.credits), [0.5], 'one model score, billed once');
    } finally {
      await outbound.close();
      await openai.close();
    }
  });
});
