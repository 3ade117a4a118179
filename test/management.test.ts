import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createUser } from '../src/accounts/create-user.ts';
import { createFixture, useTestApp, type Fixture } from './helpers.ts';

describe('the management API: what the CLI does, for signed-in members', () => {
  const ctx = useTestApp({ configuredEngines: ['perplexity', 'copilot'] });
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
});
