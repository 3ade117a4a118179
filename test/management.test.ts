import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { createUser } from '../src/accounts/create-user.ts';
import { changeMemberRole, removeMember } from '../src/accounts/manage-members.ts';
import { COMMANDS } from '../src/cli/commands.ts';
import { createFixture, useTestApp, type Fixture } from './helpers.ts';

/**
 * Each CLI command and the operation that does it for a signed-in owner (operations.md section 8:
 * "what the CLI can do, an owner can do in the app"); null for the commands that run the process
 * itself. A command added without its operation fails here.
 */
const APP_OPERATION_OF: Record<string, string | null> = {
  serve: null,
  migrate: null,
  mcp: null,
  'workspace create': 'POST /app/api/workspaces',
  'workspace list': 'GET /app/api/workspaces',
  'workspace update': 'PATCH /app/api/workspace',
  'credits grant': 'POST /app/api/credits',
  'project create': 'POST /app/api/projects',
  'project list': 'GET /app/api/projects',
  'competitor add': 'POST /app/api/projects/{id}/competitors',
  'competitor list': 'GET /app/api/projects/{id}/competitors',
  'key create': 'POST /app/api/keys',
  'key list': 'GET /app/api/keys',
  'key revoke': 'DELETE /app/api/keys/{id}',
  'engines list': 'GET /api/v1/engines',
  'topics list': 'GET /api/v1/projects/{id}/topics',
  'runs import': 'POST /app/api/projects/{id}/runs',
  'webhook add': 'POST /app/api/webhooks',
  'webhook list': 'GET /app/api/webhooks',
  demo: 'POST /app/api/demo',
  'user create': 'POST /app/api/members',
  'prompt add': 'POST /app/api/projects/{id}/prompts',
  'prompt update': 'PATCH /app/api/prompts/{id}',
  'prompt remove': 'DELETE /app/api/prompts/{id}',
  'prompt list': 'GET /app/api/projects/{id}/prompts',
  'prompt estimate': 'GET /app/api/projects/{id}/prompts',
  sample: 'POST /app/api/projects/{id}/sample',
  verify: 'POST /app/api/projects/{id}/verify',
  'providers list': 'GET /app/api/providers',
};

describe('the management API: what the CLI does, for signed-in members', () => {
  const ctx = useTestApp({ configuredEngines: ['perplexity', 'copilot'], resolve: new Map([['hooks.mgmt.example:443', '192.0.2.10']]) });
  let fx: Fixture;
  const password = 'a fine long password';
  let owner: { cookie: string; csrf: string };
  let viewer: { cookie: string; csrf: string };

  const signIn = async (email: string) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/app/session', payload: { email, password } });
    assert.equal(res.statusCode, 200);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().data.csrfToken as string };
  };
  const as = (who: { cookie: string; csrf: string }, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    ctx.app.inject({ method, url, headers: { cookie: who.cookie, 'x-csrf-token': who.csrf }, ...(payload ? { payload } : {}) });

  before(async () => {
    fx = await createFixture(ctx.db);
    await createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'owner@mgmt.example', password, role: 'owner' });
    await createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'viewer@mgmt.example', password, role: 'viewer' });
    owner = await signIn('owner@mgmt.example');
    viewer = await signIn('viewer@mgmt.example');
  });

  test('every CLI command has its operation in the app, in the OpenAPI document', async () => {
    assert.deepEqual(Object.keys(COMMANDS).sort(), Object.keys(APP_OPERATION_OF).sort());
    const paths = (await ctx.app.inject({ url: '/api/v1/openapi.json' })).json().paths as Record<string, Record<string, unknown>>;
    for (const [command, operation] of Object.entries(APP_OPERATION_OF)) {
      if (operation === null) continue;
      const [method, path] = operation.split(' ') as [string, string];
      assert.ok(paths[path]?.[method.toLowerCase()], `${command}: ${operation} is not in the document`);
    }
  });

  test('an owner sets up a project: competitors, prompts with their estimate, with the CLI\'s validation', async () => {
    const project = await as(owner, 'POST', '/app/api/projects', { name: 'Brandy', domain: 'https://www.Brandy.io/' });
    assert.equal(project.statusCode, 200, project.body);
    const projectId = project.json().data.id;
    assert.equal((await as(owner, 'POST', '/app/api/projects', { name: '', domain: 'brandy.io' })).json().error.details.name, 'must be 1 to 200 characters');
    const rival = await as(owner, 'POST', `/app/api/projects/${projectId}/competitors`, { name: 'Rival', domain: 'rival.io', color: '#ff0000' });
    assert.equal(rival.statusCode, 200);
    assert.deepEqual((await as(viewer, 'GET', `/app/api/projects/${projectId}/competitors`)).json().data.competitors.map((c: { name: string; color: string }) => `${c.name} ${c.color}`), ['Rival #ff0000']);
    const prompt = await as(owner, 'POST', `/app/api/projects/${projectId}/prompts`, { text: 'best crm', locations: ['US', 'UK'], samples: 2 });
    assert.equal(prompt.statusCode, 200, prompt.body);
    assert.equal((await as(owner, 'POST', `/app/api/projects/${projectId}/prompts`, { text: 'x', engines: ['bing'] })).statusCode, 400);
    const listed = (await as(viewer, 'GET', `/app/api/projects/${projectId}/prompts`)).json().data;
    assert.deepEqual(listed.estimate, { checksPerMonth: 240, creditsPerMonth: 240, usdPerMonth: 2.4 });
    const updated = await as(owner, 'PATCH', `/app/api/prompts/${prompt.json().data.id}`, { cadence: 'weekly' });
    assert.equal(updated.statusCode, 200);
    const removed = await as(owner, 'DELETE', `/app/api/prompts/${prompt.json().data.id}`);
    assert.match(removed.json().data.removedAt, /^\d{4}-/);
  });

  test('a key made in the app works on the API, and stops after it is revoked in the app', async () => {
    const created = await as(owner, 'POST', '/app/api/keys', { scopes: ['read'], name: 'from the app' });
    assert.equal(created.statusCode, 200, created.body);
    const { id, key } = created.json().data;
    const api = () => ctx.app.inject({ url: '/api/v1/projects', headers: { authorization: `Bearer ${key}` } });
    assert.equal((await api()).statusCode, 200);
    const keys = (await as(viewer, 'GET', '/app/api/keys')).json().data.keys;
    assert.ok(keys.some((k: { id: string }) => k.id === id));
    assert.ok(!JSON.stringify(keys).includes(key), 'never a secret');
    assert.equal((await as(owner, 'DELETE', `/app/api/keys/${id}`)).statusCode, 200);
    assert.equal((await api()).statusCode, 401);
  });

  test('viewers read but change nothing; no change without the CSRF token; another workspace is not there', async () => {
    const denied = await as(viewer, 'POST', '/app/api/projects', { name: 'Nope', domain: 'nope.io' });
    assert.equal(denied.statusCode, 403);
    assert.equal((await as(viewer, 'GET', '/app/api/projects')).statusCode, 200);
    const forged = await ctx.app.inject({ method: 'POST', url: '/app/api/projects', headers: { cookie: owner.cookie }, payload: { name: 'Forged', domain: 'forged.io' } });
    assert.equal(forged.statusCode, 403);
    assert.match(forged.json().error.message, /CSRF/);
    const other = await createFixture(ctx.db);
    assert.equal((await as(owner, 'GET', `/app/api/projects/${other.projectId}/competitors`)).statusCode, 404);
    assert.equal((await as(owner, 'POST', `/app/api/projects/${other.projectId}/prompts`, { text: 'theirs' })).statusCode, 404);
    assert.equal((await ctx.app.inject({ url: '/app/api/projects' })).statusCode, 401);
  });

  test('members and webhooks: an owner adds a member; a private webhook address is refused', async () => {
    const added = await as(owner, 'POST', '/app/api/members', { email: 'new@mgmt.example', role: 'viewer', password });
    assert.equal(added.statusCode, 200);
    const members = (await as(viewer, 'GET', '/app/api/members')).json().data.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`);
    assert.deepEqual(members, ['owner@mgmt.example:owner', 'viewer@mgmt.example:viewer', 'new@mgmt.example:viewer']);
    const hook = await as(owner, 'POST', '/app/api/webhooks', { url: 'http://127.0.0.1:9/hook' });
    assert.equal(hook.statusCode, 400);
    const usage = await as(viewer, 'GET', '/app/api/usage');
    assert.equal(usage.json().data.plan, 'growth');
  });

  test('workspaces: an owner makes one and owns it, switches the session to it and back; viewers make none', async () => {
    const made = await as(owner, 'POST', '/app/api/workspaces', { name: 'Second brand house', plan: 'starter' });
    assert.equal(made.statusCode, 200, made.body);
    const secondId = made.json().data.id;
    assert.equal((await as(owner, 'POST', '/app/api/workspaces', { name: 'x', plan: 'platinum' })).json().error.details.plan, 'must be one of free, starter, growth, enterprise');
    assert.equal((await as(viewer, 'POST', '/app/api/workspaces', { name: 'Mine' })).statusCode, 403);
    const listed = (await as(owner, 'GET', '/app/api/workspaces')).json().data.workspaces.map((w: { id: string; role: string; current: boolean }) => [w.id, w.role, w.current]);
    assert.deepEqual(listed, [[fx.workspaceId, 'owner', true], [secondId, 'owner', false]]);

    const moved = await as(owner, 'PATCH', '/app/session', { workspaceId: secondId });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual([moved.json().data.workspaceId, moved.json().data.role], [secondId, 'owner']);
    assert.deepEqual((await as(owner, 'GET', '/app/api/projects')).json().data.projects, [], 'the session reads the new workspace now');
    assert.equal((await as(owner, 'GET', `/api/v1/projects/${fx.projectId}`)).statusCode, 404, 'and the public API with it');
    assert.equal((await as(viewer, 'PATCH', '/app/session', { workspaceId: secondId })).statusCode, 404, 'not a member there: no such workspace');
    assert.equal((await ctx.app.inject({ method: 'PATCH', url: '/app/session', headers: { cookie: owner.cookie }, payload: { workspaceId: fx.workspaceId } })).statusCode, 403, 'a switch needs the CSRF token');
    const withKeyHeader = await ctx.app.inject({ method: 'PATCH', url: '/app/session', headers: { cookie: owner.cookie, authorization: 'Bearer whatever' }, payload: { workspaceId: fx.workspaceId } });
    assert.equal(withKeyHeader.statusCode, 401, 'a request with a Bearer key is not the cookie\'s: no session, no CSRF exemption');
    assert.equal((await as(owner, 'PATCH', '/app/session', { workspaceId: fx.workspaceId })).statusCode, 200);
    assert.equal((await as(owner, 'GET', '/app/api/projects')).json().data.projects.some((p: { id: string }) => p.id === fx.projectId), true);
  });

  test('plan, API access, credit enforcement, the daily ceiling and credit grants, as `workspace update` and `credits grant`', async () => {
    const other = await createFixture(ctx.db, { plan: 'starter' });
    await createUser(ctx.db, { workspaceId: other.workspaceId, email: 'boss@controls.example', password, role: 'owner' });
    await createUser(ctx.db, { workspaceId: other.workspaceId, email: 'reader@controls.example', password, role: 'viewer' });
    const boss = await signIn('boss@controls.example');
    const reader = await signIn('reader@controls.example');
    assert.deepEqual((await as(reader, 'GET', '/app/api/workspace')).json().data, { id: other.workspaceId, plan: 'starter', apiAccess: null, creditsEnforced: false, dailyCeilingUsd: 50 });
    const changed = await as(boss, 'PATCH', '/app/api/workspace', { plan: 'free', creditsEnforced: true, dailyCeilingUsd: 12.5 });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().data, { id: other.workspaceId, plan: 'free', apiAccess: null, creditsEnforced: true, dailyCeilingUsd: 12.5 });
    const api = () => ctx.app.inject({ url: '/api/v1/projects', headers: { authorization: `Bearer ${other.readKey}` } });
    assert.equal((await api()).statusCode, 403, 'the free plan has no API access: at once');
    assert.equal((await as(boss, 'PATCH', '/app/api/workspace', { apiAccess: true })).json().data.apiAccess, true);
    assert.equal((await api()).statusCode, 200);
    assert.equal((await as(boss, 'PATCH', '/app/api/workspace', { apiAccess: null })).json().data.apiAccess, null, 'null: back to what the plan has');
    assert.equal((await api()).statusCode, 403);
    assert.equal((await as(boss, 'PATCH', '/app/api/workspace', { apiAccess: true })).statusCode, 200);
    const refused = await as(boss, 'PATCH', '/app/api/workspace', { dailyCeilingUsd: 1.005 });
    assert.equal(refused.statusCode, 400);
    assert.ok(refused.json().error.details.dailyCeilingUsd);
    assert.equal((await as(boss, 'PATCH', '/app/api/workspace', {})).statusCode, 400, 'nothing to change');
    // Bodies are taken as typed: null or true where a number or a boolean belongs is refused, never read as 0, 1 or false.
    for (const body of [{ dailyCeilingUsd: null }, { dailyCeilingUsd: '5' }, { creditsEnforced: 'yes' }, { creditsEnforced: null }]) {
      const typed = await as(boss, 'PATCH', '/app/api/workspace', body);
      assert.equal(typed.statusCode, 400, JSON.stringify(body));
    }
    assert.equal((await as(boss, 'POST', '/app/api/credits', { credits: true })).statusCode, 400);
    assert.deepEqual((await as(reader, 'GET', '/app/api/workspace')).json().data.dailyCeilingUsd, 12.5, 'unchanged by the refusals');
    assert.equal((await as(reader, 'PATCH', '/app/api/workspace', { plan: 'enterprise' })).statusCode, 403);

    const granted = await as(boss, 'POST', '/app/api/credits', { credits: 250.5, note: 'pilot' });
    assert.deepEqual(granted.json().data, { workspaceId: other.workspaceId, credits: 250.5 });
    assert.equal((await as(boss, 'POST', '/app/api/credits', { credits: -1 })).json().error.details.credits, 'must be a positive number with at most four decimals');
    assert.equal((await as(boss, 'POST', '/app/api/credits', { credits: 1e9 })).statusCode, 400, "today's grants stay within a billion credits");
    assert.equal((await as(reader, 'POST', '/app/api/credits', { credits: 1 })).statusCode, 403);
    const usage = (await as(reader, 'GET', '/app/api/usage')).json().data;
    assert.deepEqual([usage.plan, usage.credits.granted, usage.credits.enforced, usage.dailySpend.ceilingUsd], ['free', 250.5, true, 12.5]);
  });

  test('colours picked in the app: the brand\'s and a competitor\'s, shown by the ranking at once', async () => {
    const rows = async () =>
      Object.fromEntries(
        (await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/ranking`, headers: { authorization: `Bearer ${fx.readKey}` } })).json().data.rows.map((r: { name: string; color: string | null }) => [r.name, r.color]),
      );
    assert.deepEqual(await rows(), { Acme: '#112233', Globex: null });
    const recolor = (who: { cookie: string; csrf: string }, subjectId: string, color: string | null) => as(who, 'PATCH', `/app/api/projects/${fx.projectId}/subjects/${subjectId}`, { color });
    assert.deepEqual((await recolor(owner, fx.competitorId, '#0E7490')).json().data, { id: fx.competitorId, color: '#0e7490' });
    assert.equal((await recolor(owner, fx.projectId, null)).statusCode, 200);
    assert.deepEqual(await rows(), { Acme: null, Globex: '#0e7490' }, 'the cached ranking is computed afresh');
    assert.equal((await recolor(owner, fx.competitorId, 'teal')).json().error.details.color, 'must be #rgb or #rrggbb');
    assert.equal((await recolor(viewer, fx.competitorId, '#000')).statusCode, 403);
    const other = await createFixture(ctx.db);
    assert.equal((await recolor(owner, other.competitorId, '#000')).statusCode, 404, "another project's competitor is no subject of this one");
  });

  test('members: roles changed and members removed (their sessions end at once); a workspace keeps an owner', async () => {
    const team = await createFixture(ctx.db);
    const made = await Promise.all(
      ['lead', 'analyst'].map((name, i) => createUser(ctx.db, { workspaceId: team.workspaceId, email: `${name}@team.example`, password, role: i === 0 ? 'owner' : 'viewer' })),
    );
    const [leadId, analystId] = made.map((m) => m.id) as [string, string];
    const lead = await signIn('lead@team.example');
    const analyst = await signIn('analyst@team.example');
    assert.equal((await as(lead, 'PATCH', `/app/api/members/${leadId}`, { role: 'viewer' })).statusCode, 409, 'the only owner stays one');
    assert.equal((await as(lead, 'DELETE', `/app/api/members/${leadId}`)).statusCode, 409);
    assert.equal((await as(lead, 'POST', '/app/api/members', { email: 'LEAD@team.example', role: 'viewer', password })).statusCode, 409, 'nor through adding the same person again');
    assert.equal((await as(analyst, 'PATCH', `/app/api/members/${analystId}`, { role: 'owner' })).statusCode, 403, 'a viewer promotes nobody, not even themselves');
    assert.equal((await as(lead, 'PATCH', `/app/api/members/${analystId}`, { role: 'admin' })).json().error.details.role, 'must be one of owner, viewer');

    assert.deepEqual((await as(lead, 'PATCH', `/app/api/members/${analystId}`, { role: 'owner' })).json().data, { id: analystId, role: 'owner' });
    assert.equal((await as(analyst, 'GET', '/app/session')).json().data.role, 'owner', 'the session reads the new role on its next request');
    assert.equal((await as(analyst, 'PATCH', `/app/api/members/${leadId}`, { role: 'viewer' })).statusCode, 200, 'with two owners, one may step down');

    assert.equal((await as(analyst, 'DELETE', `/app/api/members/${leadId}`)).statusCode, 200);
    assert.equal((await as(lead, 'GET', '/app/api/projects')).statusCode, 401, "the removed member's session ended");
    assert.equal((await as(analyst, 'POST', '/app/api/members', { email: 'lead@team.example', role: 'viewer', password })).statusCode, 200, 'added back');
    assert.equal((await as(lead, 'GET', '/app/api/projects')).statusCode, 401, 'the old session stays ended: it was deleted, not only unreadable');
    assert.equal((await as(analyst, 'DELETE', `/app/api/members/${leadId}`)).statusCode, 200);
    assert.equal((await as(analyst, 'DELETE', `/app/api/members/${leadId}`)).statusCode, 404, 'no member any more');
    assert.deepEqual((await as(analyst, 'GET', '/app/api/members')).json().data.members.map((m: { email: string }) => m.email), ['analyst@team.example']);
    assert.equal((await as(owner, 'DELETE', `/app/api/members/${analystId}`)).statusCode, 404, "another workspace's member is not there");
  });

  test('two owners stepping down at once: one does, the other is refused, and the workspace keeps an owner', async () => {
    for (let round = 0; round < 5; round++) {
      const team = await createFixture(ctx.db);
      const [a, b] = await Promise.all(['a', 'b'].map((name) => createUser(ctx.db, { workspaceId: team.workspaceId, email: `${name}${round}@race.example`, password, role: 'owner' })));
      const outcomes = await Promise.allSettled([changeMemberRole(ctx.db, team.workspaceId, a!.id, 'viewer'), removeMember(ctx.db, team.workspaceId, b!.id)]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, JSON.stringify(outcomes));
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.match(String(refused.reason.message), /keeps at least one owner/);
      const owners = await ctx.db.selectFrom('memberships').select('user_id').where('workspace_id', '=', team.workspaceId).where('role', '=', 'owner').execute();
      assert.equal(owners.length, 1);
    }
  });

  test('a webhook removed in the app gets nothing more', async () => {
    const hook = await as(owner, 'POST', '/app/api/webhooks', { url: 'https://hooks.mgmt.example/sightline' });
    assert.equal(hook.statusCode, 200, hook.body);
    const { id } = hook.json().data;
    assert.equal((await as(viewer, 'DELETE', `/app/api/webhooks/${id}`)).statusCode, 403);
    // A delivery waiting for it: removed with it, so no instance sends it.
    await ctx.db
      .insertInto('webhook_deliveries')
      .values({ id: randomUUID(), workspace_id: fx.workspaceId, webhook_id: id, event_id: randomUUID(), payload: '{}', status: 'pending', next_attempt_at: new Date() })
      .execute();
    const removed = await as(owner, "DELETE", `/app/api/webhooks/${id}`);
    assert.deepEqual(removed.json().data, { id }, removed.body);
    assert.equal((await ctx.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id).execute()).length, 0);
    assert.equal((await as(owner, 'GET', '/app/api/webhooks')).json().data.webhooks.some((w: { id: string }) => w.id === id), false);
    assert.equal((await as(owner, 'DELETE', `/app/api/webhooks/${id}`)).statusCode, 404);
  });
});
