import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliEnv, json, run, scratchDataDir, startServer, stopServer } from './processes.ts';

const baseEnv = (dataDir: string): NodeJS.ProcessEnv => cliEnv(dataDir, { server: true });

describe('the CLI', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    dataDir = scratchDataDir('cli');
    env = baseEnv(dataDir);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('works with no server running: every command, one JSON object each', async () => {
    const engines = await json(['engines', 'list'], env);
    assert.deepEqual(
      engines.engines.map((e: { key: string }) => e.key),
      ['chatgpt', 'perplexity', 'gemini', 'google_ai_overviews', 'google_ai_mode', 'claude', 'copilot'],
    );
    for (const e of engines.engines) assert.deepEqual(Object.keys(e), ['id', 'key', 'label']);
    const { id: workspaceId } = await json(['workspace', 'create', '--name', 'Direct'], env);
    const updated = await json(['workspace', 'update', workspaceId, '--plan', 'growth', '--credits-enforced', 'true', '--daily-ceiling-usd', '25'], env);
    assert.equal(updated.id, workspaceId);
    const { id: projectId } = await json(
      ['project', 'create', '--workspace', workspaceId, '--name', 'Brand', '--domain', 'brand.example.com', '--color', '#123456', '--alias', 'Brandy', '--alias', 'BR'],
      env,
    );
    const competitor = await json(['competitor', 'add', '--project', projectId, '--name', 'Rival', '--domain', 'rival.com'], env);
    assert.match(competitor.id, /^[0-9a-f-]{36}$/);
    const key = await json(['key', 'create', '--workspace', workspaceId, '--project', projectId, '--scopes', 'read,ingest', '--rate-limit', '10', '--name', 'ci'], env);
    assert.deepEqual(Object.keys(key).sort(), ['id', 'key']);
    assert.match(key.key, /^sl_/);
    assert.deepEqual(await json(['topics', 'list', '--project', projectId], env), { topics: [] });
    const grant = await json(['credits', 'grant', '--workspace', workspaceId, '--credits', '12.5', '--note', 'test'], env);
    assert.equal(grant.credits, 12.5);
    const revoked = await json(['key', 'revoke', key.id], env);
    assert.equal(revoked.id, key.id);
    const migrated = await json(['migrate'], env);
    assert.deepEqual(migrated.applied, []);
    const demo = await json(['demo', '--workspace', workspaceId], env);
    assert.equal(demo.workspaceId, workspaceId);
    assert.match(demo.keys.read, /^sl_/);
    assert.match(demo.keys.ingest, /^sl_/);
    assert.ok((await json(['topics', 'list', '--project', demo.projectId], env)).topics.length >= 3);
  });

  // A user could not see what exists: every thing the CLI makes can be listed, with --json.
  test('lists: workspaces, projects, competitors, keys (never a secret), webhooks', async () => {
    const { id: workspaceId } = await json(['workspace', 'create', '--name', 'Listed', '--plan', 'growth'], env);
    const { id: projectId } = await json(['project', 'create', '--workspace', workspaceId, '--name', 'Seen', '--domain', 'seen.io', '--color', '#abcdef'], env);
    const { id: competitorId } = await json(['competitor', 'add', '--project', projectId, '--name', 'Rival', '--domain', 'rival.io', '--alias', 'RV'], env);
    const created = await json(['key', 'create', '--workspace', workspaceId, '--project', projectId, '--scopes', 'read,mcp', '--name', 'listed'], env);
    const { id: hookId } = await json(['webhook', 'add', '--workspace', workspaceId, '--url', 'https://203.0.114.10/in'], env);

    const workspaces = (await json(['workspace', 'list'], env)).workspaces;
    assert.deepEqual(Object.keys(workspaces.find((w: any) => w.id === workspaceId)).sort(), ['apiAccess', 'createdAt', 'creditsEnforced', 'dailyCeilingUsd', 'id', 'name', 'plan']);
    assert.deepEqual((await json(['project', 'list', '--workspace', workspaceId], env)).projects.map((p: any) => [p.id, p.name, p.domain, p.color]), [[projectId, 'Seen', 'seen.io', '#abcdef']]);
    assert.ok((await json(['project', 'list'], env)).projects.some((p: any) => p.id === projectId));
    assert.deepEqual((await json(['competitor', 'list', '--project', projectId], env)).competitors.map((c: any) => [c.id, c.domain, c.aliases]), [[competitorId, 'rival.io', ['RV']]]);
    await json(['key', 'revoke', created.id], env);
    const keys = (await json(['key', 'list', '--workspace', workspaceId], env)).keys;
    assert.equal(keys.length, 1);
    assert.deepEqual(Object.keys(keys[0]).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'projectId', 'rateLimit', 'revokedAt', 'scopes']);
    assert.deepEqual([keys[0].id, keys[0].scopes, keys[0].projectId, keys[0].lastUsedAt], [created.id, ['read', 'mcp'], projectId, null]);
    assert.ok(keys[0].revokedAt);
    assert.ok(created.key.startsWith(keys[0].prefix));
    assert.ok(!JSON.stringify(keys).includes(created.key), 'never the secret');
    const hooks = (await json(['webhook', 'list', '--workspace', workspaceId], env)).webhooks;
    assert.deepEqual(hooks.map((h: any) => [h.id, h.url, h.deliveries]), [[hookId, 'https://203.0.114.10/in', { pending: 0, delivered: 0, failed: 0 }]]);
    assert.ok(!('secret' in hooks[0]));
    const text = await run(['key', 'list', '--workspace', workspaceId], env);
    assert.match(text.stdout, /revoked/);
  });

  test('refusals: non-zero exit, the error on stderr, nothing on stdout', async () => {
    for (const args of [
      ['project', 'create', '--workspace', 'not-a-uuid', '--name', 'X', '--domain', 'x.com'],
      ['project', 'create', '--workspace', '00000000-0000-4000-8000-000000000000', '--name', 'X', '--domain', 'x.com'],
      ['workspace', 'create', '--name', 'X', '--plan', 'platinum'],
      ['key', 'create', '--workspace', '00000000-0000-4000-8000-000000000000', '--scopes', 'admin'],
      ['workspace', 'update', '00000000-0000-4000-8000-000000000000', '--api-access', 'maybe'],
      ['key', 'revoke', '00000000-0000-4000-8000-000000000000'],
    ]) {
      const result = await run([...args, '--json'], env);
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      const error = JSON.parse(result.stderr.trim()).error;
      assert.ok(['bad_request', 'not_found'].includes(error.code), `${args.join(' ')}: ${error.code}`);
    }
    const usage = await run(['project', 'create', '--json'], env);
    assert.equal(usage.code, 2);
    assert.equal(usage.stdout, '');
    const unknown = await run(['frobnicate', '--json'], env);
    assert.equal(unknown.code, 2);
    // No command at all is a bad command line too: the error on stderr, nothing on stdout.
    for (const args of [['--json'], []]) {
      const none = await run(args, env);
      assert.equal(none.code, 2, args.join(' '));
      assert.equal(none.stdout, '');
      assert.match(none.stderr, args.length > 0 ? /"code":"usage"/ : /usage: sightline/);
    }
    const help = await run(['--help', '--json'], env);
    assert.equal(help.code, 0);
    assert.match(JSON.parse(help.stdout).usage, /^usage: sightline/);
  });
});

describe('the CLI while a server runs on the same database', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let server: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    dataDir = scratchDataDir('cli-srv');
    env = baseEnv(dataDir);
    server = await startServer(env);
  });
  after(async () => {
    if (server) await stopServer(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('commands and the server share the embedded PostgreSQL: no refusal, no loss, revocation at once', async () => {
    const { id: workspaceId } = await json(['workspace', 'create', '--name', 'Live'], env);
    const { id: projectId } = await json(['project', 'create', '--workspace', workspaceId, '--name', 'Live brand', '--domain', 'live.io'], env);
    const key = await json(['key', 'create', '--workspace', workspaceId, '--scopes', 'read'], env);

    const list = await fetch(`${server.url}/api/v1/projects`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.equal(list.status, 200);
    assert.deepEqual(((await list.json()) as any).data.projects, [{ id: projectId, name: 'Live brand', domain: 'live.io' }]);

    // Several commands at once, with HTTP traffic in between: every one lands.
    const names = ['one', 'two', 'three', 'four'];
    const traffic = Promise.all(
      Array.from({ length: 20 }, () => fetch(`${server.url}/api/v1/usage`, { headers: { authorization: `Bearer ${key.key}` } }).then((r) => r.status)),
    );
    const created = await Promise.all(
      names.map((name) => json(['project', 'create', '--workspace', workspaceId, '--name', name, '--domain', `${name}.io`], env)),
    );
    assert.ok((await traffic).every((s) => s === 200 || s === 429));
    const after = await fetch(`${server.url}/api/v1/projects`, { headers: { authorization: `Bearer ${key.key}` } });
    const ids = ((await after.json()) as any).data.projects.map((p: { id: string }) => p.id);
    for (const { id } of created) assert.ok(ids.includes(id), `project ${id} landed`);
    assert.equal(ids.length, 5);

    // Runs in, from a file and from stdin, through the server.
    const line = (i: number, extra = {}) =>
      JSON.stringify({ id: `6f1d0c2a-7c1e-4f0a-9a51-${String(i).padStart(12, '0')}`, engine: 'chatgpt', prompt: 'best crm', ranAt: '2026-11-20T09:00:00Z', status: 'ok', answer: 'Live brand is great', ...extra });
    const file = join(dataDir, 'runs.jsonl');
    writeFileSync(file, [line(1), line(2), 'oops', line(3, { engine: 'bing' })].join('\n') + '\n');
    const imported = await json(['runs', 'import', '--project', projectId, file], env);
    assert.deepEqual(imported.imported, 2);
    assert.deepEqual(imported.skipped, 0);
    assert.deepEqual(imported.rejected, 2);
    assert.deepEqual(imported.errors.map((e: { line: number }) => e.line), [3, 4]);
    const again = await json(['runs', 'import', '--project', projectId, '-'], env, [line(1), line(4)].join('\n'));
    assert.deepEqual([again.imported, again.skipped, again.rejected, again.errors], [1, 1, 0, []]);
    const series = await fetch(`${server.url}/api/v1/projects/${projectId}/visibility/timeseries?from=2026-11-20&to=2026-11-20`, { headers: { authorization: `Bearer ${key.key}` } });
    const point = ((await series.json()) as any).data.series[0];
    assert.deepEqual([point.sampleSize, point.mentionRuns], [3, 3]);
    const topics = await json(['topics', 'list', '--project', projectId], env);
    assert.deepEqual(topics, { topics: [] });

    await json(['key', 'revoke', key.id], env);
    const revoked = await fetch(`${server.url}/api/v1/projects`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.equal(revoked.status, 401);
  });

  test('what the CLI wrote while the server ran is kept after the server stops', async () => {
    const { id: workspaceId } = await json(['workspace', 'create', '--name', 'Durable'], env);
    await json(['project', 'create', '--workspace', workspaceId, '--name', 'Kept', '--domain', 'kept.io'], env);
    await stopServer(server.child);
    // Now the CLI opens the data directory itself.
    const key = await json(['key', 'create', '--workspace', workspaceId, '--scopes', 'read'], env);
    server = await startServer(env);
    const res = await fetch(`${server.url}/api/v1/projects`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.deepEqual(((await res.json()) as any).data.projects.map((p: { name: string }) => p.name), ['Kept']);
  });
});
