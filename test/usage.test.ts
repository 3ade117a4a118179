import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { consumeCredits } from '../src/usage/consume-credits.ts';
import { grantCredits } from '../src/usage/grant-credits.ts';
import { updateWorkspace } from '../src/workspaces/update-workspace.ts';
import { bearer, createFixture, openTestDatabase, testApp } from './helpers.ts';

const PER_ACTION_KEYS = [
  'agent_chat', 'agent_chat_deep', 'content_generate', 'prompts_generate', 'topics_generate',
  'competitors_discover', 'keyword_metrics', 'prompt_research', 'issue_fix', 'content_seo',
  'content_interview', 'opportunity_explain', 'insight_narrative', 'detected_market', 'autodetect',
  'query_fanout', 'domain_authority', 'sentiment_score',
];
const ENGINE_KEYS = ['chatgpt', 'perplexity', 'gemini', 'google_ai_overviews', 'google_ai_mode', 'claude', 'copilot'];

describe('GET /api/v1/usage', () => {
  let database: Database;
  let app: FastifyInstance;
  let clock = new Date();

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db, { now: () => clock });
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const usage = async (key: string) => {
    const res = await app.inject({ url: '/api/v1/usage', headers: bearer(key) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  };

  test('a new workspace: the whole object, this month, the full allowance', async () => {
    clock = new Date();
    const fx = await createFixture(database.db, { plan: 'starter' });
    const data = await usage(fx.readKey);
    const period = `${clock.toISOString().slice(0, 7)}-01`;
    assert.deepEqual(data.credits, {
      period,
      available: 2000,
      allowance: 2000,
      rollover: 0,
      granted: 0,
      consumed: 0,
      enforced: false,
    });
    assert.equal(data.plan, 'starter');
    assert.deepEqual(Object.keys(data.pricing.perEngineCheck).sort(), [...ENGINE_KEYS].sort());
    assert.deepEqual(Object.keys(data.pricing.perAction).sort(), [...PER_ACTION_KEYS].sort());
    for (const v of [...Object.values(data.pricing.perEngineCheck), ...Object.values(data.pricing.perAction)]) {
      assert.equal(typeof v, 'number');
      assert.ok((v as number) > 0);
    }
    assert.equal(typeof data.pricing.usdPerCredit, 'number');
    assert.deepEqual(data.dailySpend, { spentUsd: 0, ceilingUsd: 50 });
    assert.deepEqual(Object.keys(data).sort(), ['credits', 'dailySpend', 'plan', 'pricing']);
  });

  test('grants and consumption move granted, consumed, available and today\'s spend', async () => {
    clock = new Date();
    const fx = await createFixture(database.db, { plan: 'starter' });
    await grantCredits(database.db, fx.workspaceId, 150.5, 'goodwill', clock);
    await consumeCredits(database.db, fx.workspaceId, { engineCheck: 'claude' }, clock);
    await consumeCredits(database.db, fx.workspaceId, { action: 'content_generate' }, clock);
    const data = await usage(fx.readKey);
    const checkPrice = data.pricing.perEngineCheck.claude;
    const actionPrice = data.pricing.perAction.content_generate;
    assert.equal(data.credits.granted, 150.5);
    assert.equal(data.credits.consumed, checkPrice + actionPrice);
    assert.equal(data.credits.available, 2000 + 150.5 - checkPrice - actionPrice);
    assert.equal(data.dailySpend.spentUsd, Math.round((checkPrice + actionPrice) * data.pricing.usdPerCredit * 1e6) / 1e6);
  });

  test('next month: unused credits roll over (at most one allowance), this month\'s counters restart', async () => {
    clock = new Date();
    const fx = await createFixture(database.db, { plan: 'starter' });
    await grantCredits(database.db, fx.workspaceId, 500, undefined, clock);
    await consumeCredits(database.db, fx.workspaceId, { action: 'issue_fix' }, clock);
    const thisMonth = await usage(fx.readKey);
    const unused = thisMonth.credits.available;

    const next = new Date(Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth() + 1, 3, 12));
    clock = next;
    const nextMonth = await usage(fx.readKey);
    assert.equal(nextMonth.credits.period, next.toISOString().slice(0, 8) + '01');
    assert.equal(nextMonth.credits.rollover, Math.min(unused, 2000));
    assert.equal(nextMonth.credits.granted, 0);
    assert.equal(nextMonth.credits.consumed, 0);
    assert.equal(nextMonth.credits.available, 2000 + Math.min(unused, 2000));
    assert.equal(nextMonth.dailySpend.spentUsd, 0);
  });

  test('a month nobody looked at still carries its balance forward', async () => {
    clock = new Date();
    const fx = await createFixture(database.db, { plan: 'starter' });
    await consumeCredits(database.db, fx.workspaceId, { action: 'agent_chat_deep' }, clock);
    const deep = (await usage(fx.readKey)).pricing.perAction.agent_chat_deep;
    // Two months on, the month in between was never opened.
    clock = new Date(Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth() + 2, 1));
    const later = await usage(fx.readKey);
    // Month 1 leaves 2000 - deep; month 2 carries that (rollover) and leaves 2000 + (2000 - deep),
    // capped at one allowance for month 3.
    assert.equal(later.credits.rollover, 2000);
    assert.ok(deep > 0);
  });

  test('plan, enforcement and ceiling follow the workspace', async () => {
    clock = new Date();
    const fx = await createFixture(database.db, { plan: 'starter' });
    await updateWorkspace(database.db, fx.workspaceId, { plan: 'enterprise', creditsEnforced: true, dailyCeilingUsd: 12.5 });
    const data = await usage(fx.readKey);
    assert.equal(data.plan, 'enterprise');
    assert.equal(data.credits.allowance, 50_000);
    assert.equal(data.credits.enforced, true);
    assert.equal(data.dailySpend.ceilingUsd, 12.5);
  });

  test('a project-scoped key reads its workspace\'s usage', async () => {
    clock = new Date();
    const fx = await createFixture(database.db);
    const { createApiKey } = await import('../src/auth/create-api-key.ts');
    const scoped = await createApiKey(database.db, { workspaceId: fx.workspaceId, projectId: fx.projectId, scopes: ['read'] });
    assert.equal((await usage(scoped.key)).plan, 'growth');
  });
});

describe('consuming credits', () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  test('with credits enforced, running out refuses the work with quota_exceeded and charges nothing', async () => {
    const fx = await createFixture(database.db, { plan: 'free' }); // 100 credits
    await updateWorkspace(database.db, fx.workspaceId, { creditsEnforced: true });
    const now = new Date();
    for (let i = 0; i < 5; i++) await consumeCredits(database.db, fx.workspaceId, { action: 'content_generate' }, now); // 5 x 20
    await assert.rejects(consumeCredits(database.db, fx.workspaceId, { action: 'keyword_metrics' }, now), (error: Error & { code?: string; statusCode?: number }) => {
      assert.equal(error.code, 'quota_exceeded');
      assert.equal(error.statusCode, 402);
      return true;
    });
    const ledger = await database.db.selectFrom('credit_ledger').select('credits').where('workspace_id', '=', fx.workspaceId).execute();
    assert.equal(ledger.length, 5);
  });

  test('with credits not enforced, the balance is only measured and may go negative', async () => {
    const fx = await createFixture(database.db, { plan: 'free' });
    const now = new Date();
    for (let i = 0; i < 6; i++) await consumeCredits(database.db, fx.workspaceId, { action: 'content_generate' }, now);
    const { getUsage } = await import('../src/usage/get-usage.ts');
    assert.equal((await getUsage(database.db, fx.workspaceId, now)).credits.available, -20);
  });

  test('the daily ceiling refuses work past it, enforced or not', async () => {
    const fx = await createFixture(database.db);
    await updateWorkspace(database.db, fx.workspaceId, { dailyCeilingUsd: 0.5 }); // 50 credits at 0.01
    const now = new Date();
    await consumeCredits(database.db, fx.workspaceId, { action: 'content_generate' }, now);
    await consumeCredits(database.db, fx.workspaceId, { action: 'content_generate' }, now);
    await assert.rejects(consumeCredits(database.db, fx.workspaceId, { action: 'content_generate' }, now), /daily spend ceiling/);
    // Tomorrow is a new day.
    const tomorrow = new Date(now.getTime() + 86_400_000);
    await consumeCredits(database.db, fx.workspaceId, { action: 'content_generate' }, tomorrow);
  });

  test('grants must be positive', async () => {
    const fx = await createFixture(database.db);
    for (const bad of [0, -5, Number.NaN, 0.00001]) {
      await assert.rejects(grantCredits(database.db, fx.workspaceId, bad, undefined, new Date()), /positive/);
    }
  });
});
