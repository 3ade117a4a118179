import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { bearer, openTestDatabase, testApp } from './helpers.ts';
import { cliEnv, json, ROOT, scratchDataDir } from './processes.ts';
import type { Database } from '../src/db/database.ts';
import { createOutbound } from '../src/outbound/outbound.ts';
import { ENGINE_ADAPTERS } from '../src/sampling/providers/adapters.ts';
import { loadSamplingConfig } from '../src/sampling/providers/providers-config.ts';

const NOW = new Date('2026-11-22T12:00:00Z');

type ToolResult = { isError?: boolean; structuredContent?: any };

describe('the MCP tool server', () => {
  let database: Database;
  let app: FastifyInstance;
  let url: string;
  let projectId: string;
  let workspaceId: string;
  let readKey: string;
  const keys: Record<string, string> = {};

  before(async () => {
    database = await openTestDatabase();
    const demo = await seedDemo(database.db, { now: NOW });
    projectId = demo.projectId;
    workspaceId = demo.workspaceId;
    readKey = demo.keys.read;
    for (const scopes of [['mcp'], ['mcp', 'mcp:write'], ['read']]) keys[scopes.join('+')] = (await createApiKey(database.db, { workspaceId, scopes })).key;
    const sampling = loadSamplingConfig({});
    app = await testApp(database.db, {
      now: () => NOW,
      configuredEngines: ['perplexity', 'copilot'],
      sampler: { db: database.db, outbound: createOutbound({ userAgent: 'test' }), sampling, providers: sampling.providers, adapters: ENGINE_ADAPTERS, now: () => NOW },
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const connect = async (key: string) => {
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    return client;
  };
  const get = async (path: string) => (await app.inject({ url: path, headers: bearer(readKey) })).json().data;

  test('the read tools answer what the HTTP endpoints answer, number for number', async () => {
    const client = await connect(keys.mcp!);
    try {
      // Every tool is listed to every key; what a key may call is its scopes' (the writes answer forbidden to an mcp key).
      const listed = (await client.listTools()).tools;
      const writes = ['add_competitor', 'add_prompt', 'remove_prompt', 'sample_now', 'update_prompt', 'verify_now'];
      assert.deepEqual(listed.filter((t) => writes.includes(t.name)).map((t) => t.name).sort(), writes);
      assert.ok(listed.filter((t) => writes.includes(t.name)).every((t) => t.annotations?.readOnlyHint === false && t.description!.includes('mcp:write')));
      const tools = listed.filter((t) => !writes.includes(t.name));
      assert.deepEqual(tools.map((t) => t.name).sort(), ['get_changes', 'get_citations', 'get_ranking', 'get_run', 'get_traffic', 'get_usage', 'get_visibility_timeseries', 'list_projects', 'list_prompts', 'list_runs']);
      assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true && t.description!.length > 40));
      const ranking = tools.find((t) => t.name === 'get_ranking')!;
      assert.deepEqual(Object.keys(ranking.inputSchema.properties!).sort(), ['branded', 'engineId', 'from', 'location', 'projectId', 'to', 'topicId']);
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as ToolResult;
        assert.ok(!result.isError, JSON.stringify(result.structuredContent));
        return result.structuredContent;
      };
      const base = `/api/v1/projects/${projectId}`;
      assert.deepEqual(await call('list_projects', {}), await get('/api/v1/projects'));
      assert.deepEqual(await call('get_ranking', { projectId }), await get(`${base}/visibility/ranking`));
      assert.deepEqual(await call('get_visibility_timeseries', { projectId, from: '2026-11-01', branded: 'true' }), await get(`${base}/visibility/timeseries?from=2026-11-01&branded=true`));
      // `branded` as JSON has it (the filters echo a boolean), on every tool that filters.
      for (const branded of [true, false]) {
        const query = `from=2026-11-01&branded=${branded}`;
        assert.deepEqual(await call('get_visibility_timeseries', { projectId, from: '2026-11-01', branded }), await get(`${base}/visibility/timeseries?${query}`));
        assert.deepEqual(await call('get_ranking', { projectId, from: '2026-11-01', branded }), await get(`${base}/visibility/ranking?${query}`));
        assert.deepEqual(await call('get_citations', { projectId, from: '2026-11-01', branded }), await get(`${base}/citations?${query}`));
        assert.deepEqual(await call('list_runs', { projectId, from: '2026-11-01', branded, limit: 3 }), await get(`${base}/runs?${query}&limit=3`));
      }
      assert.deepEqual(await call('get_citations', { projectId }), await get(`${base}/citations`));
      assert.deepEqual(await call('get_changes', { projectId }), await get(`${base}/changes`));
      assert.deepEqual(await call('get_traffic', { projectId }), await get(`${base}/traffic`));
      assert.deepEqual(await call('get_usage', {}), await get('/api/v1/usage'));
      assert.deepEqual(await call('list_prompts', { projectId }), await get(`${base}/prompts`));
      const runs = await call('list_runs', { projectId, limit: 5 });
      assert.deepEqual(runs, await get(`${base}/runs?limit=5`));
      assert.deepEqual(await call('get_run', { projectId, runId: runs.runs[0].id }), await get(`${base}/runs/${runs.runs[0].id}`));
      // Bad arguments and unknown projects answer the error body, as the HTTP endpoints do.
      const bad = (await client.callTool({ name: 'get_ranking', arguments: { projectId, from: 'yesterday' } })) as ToolResult;
      assert.equal(bad.isError, true);
      assert.equal(bad.structuredContent.error.code, 'bad_request');
      const unknown = (await client.callTool({ name: 'get_ranking', arguments: { projectId: '00000000-0000-4000-8000-000000000000' } })) as ToolResult;
      assert.equal(unknown.structuredContent.error.code, 'not_found');
      // A competitor's series without its id is refused as the HTTP endpoint refuses it (operations.md section 5).
      const noSubject = (await client.callTool({ name: 'get_visibility_timeseries', arguments: { projectId, subjectType: 'competitor' } })) as ToolResult;
      assert.equal(noSubject.structuredContent.error.code, 'bad_request');
      assert.ok(noSubject.structuredContent.error.details.subjectId);
      // A tool that does not exist is a protocol error (invalid params), as the MCP specification has it.
      await assert.rejects(client.callTool({ name: 'get_everything', arguments: {} }), (error: { code?: number }) => error.code === -32602);
      // What the database cannot hold or the calendar cannot count is refused in the protocol, never an internal error.
      for (const [args, field] of [[{ projectId, location: 'US\u0000' }, 'location'], [{ projectId, to: '9999-12-31' }, 'to']] as const) {
        const refused = (await client.callTool({ name: 'get_ranking', arguments: args })) as ToolResult;
        assert.equal(refused.isError, true);
        assert.equal(refused.structuredContent.error.code, 'bad_request', JSON.stringify(refused.structuredContent));
        assert.ok(refused.structuredContent.error.details[field], JSON.stringify(refused.structuredContent));
      }
    } finally {
      await client.close();
    }
  });

  test('auth: no key 401, a key without an mcp scope 403; mcp reads, mcp:write also writes', async () => {
    const none = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: { code: string } }).error.code, 'unauthorized');
    const read = await fetch(`${url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${keys.read}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(read.status, 403);
    const reader = await connect(keys.mcp!);
    try {
      const denied = (await reader.callTool({ name: 'add_prompt', arguments: { projectId, text: 'not allowed' } })) as ToolResult;
      assert.equal(denied.isError, true);
      assert.equal(denied.structuredContent.error.code, 'forbidden');
    } finally {
      await reader.close();
    }
    const writer = await connect(keys['mcp+mcp:write']!);
    try {
      const names = (await writer.listTools()).tools.map((t) => t.name);
      assert.ok(['add_prompt', 'update_prompt', 'remove_prompt', 'add_competitor', 'sample_now', 'verify_now'].every((n) => names.includes(n)));
      const args = { projectId, text: 'crm for agencies', engines: ['copilot'], locations: ['US'], samples: 2, idempotencyKey: 'add-1' };
      const first = (await writer.callTool({ name: 'add_prompt', arguments: args })) as ToolResult;
      const again = (await writer.callTool({ name: 'add_prompt', arguments: args })) as ToolResult;
      assert.ok(!first.isError, JSON.stringify(first.structuredContent));
      assert.deepEqual(again.structuredContent, first.structuredContent, 'the same idempotency key answers the same, changing nothing');
      const dry = (await writer.callTool({ name: 'sample_now', arguments: { projectId } })) as ToolResult;
      assert.deepEqual(dry.structuredContent, { dryRun: true, checks: 2, skipped: 0, creditsEstimated: 2 });
      const removed = (await writer.callTool({ name: 'remove_prompt', arguments: { promptId: first.structuredContent.id } })) as ToolResult;
      assert.match(removed.structuredContent.removedAt, /^\d{4}-/);
      const prompts = await client_prompts(writer);
      assert.deepEqual(prompts, ['competitor_radar', 'weekly_pulse', 'why_not_cited']);
    } finally {
      await writer.close();
    }
  });

  test('every write tool; a project-scoped key sees only its project; a revoked key and a plan without API access are refused', async () => {
    const writer = await connect(keys['mcp+mcp:write']!);
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await writer.callTool({ name, arguments: args })) as ToolResult;
      const added = await call('add_competitor', { projectId, name: 'Hooli', domain: 'hooli.com', idempotencyKey: 'hooli' });
      assert.ok(!added.isError, JSON.stringify(added.structuredContent));
      const ranking = await get(`/api/v1/projects/${projectId}/visibility/ranking`);
      assert.ok(ranking.rows.some((r: { subjectId: string }) => r.subjectId === added.structuredContent.id));
      const prompt = await call('add_prompt', { projectId, text: 'crm for dentists', engines: ['perplexity'] });
      const updated = await call('update_prompt', { promptId: prompt.structuredContent.id, samples: 3, cadence: 'weekly' });
      assert.deepEqual(updated.structuredContent, { id: prompt.structuredContent.id });
      const listed = (await get(`/api/v1/projects/${projectId}/prompts`)).prompts.find((p: { id: string }) => p.id === prompt.structuredContent.id);
      assert.equal(listed.samples, 3);
      assert.equal(listed.cadence, 'weekly');
      const queued = await call('sample_now', { projectId, promptId: prompt.structuredContent.id, dryRun: false });
      assert.deepEqual(queued.structuredContent, { dryRun: false, checks: 3, ok: 0, failed: 0, noAnswer: 0, skipped: 3, creditsCharged: 0 }, 'perplexity has no key here: its 3 samples skipped, never charged')
      const verified = await call('verify_now', { projectId });
      assert.equal(typeof verified.structuredContent.checked, 'number');
      const conflict = await call('remove_prompt', { promptId: prompt.structuredContent.id, idempotencyKey: 'hooli' });
      assert.equal(conflict.structuredContent.error.code, 'conflict', 'an idempotency key is one write');
    } finally {
      await writer.close();
    }
    const other = await seedDemo(database.db, { now: NOW });
    const scoped = (await createApiKey(database.db, { workspaceId, projectId, scopes: ['mcp'] })).key;
    const client = await connect(scoped);
    try {
      const projects = ((await client.callTool({ name: 'list_projects', arguments: {} })) as ToolResult).structuredContent.projects;
      assert.deepEqual(projects.map((p: { id: string }) => p.id), [projectId]);
      const elsewhere = (await client.callTool({ name: 'get_ranking', arguments: { projectId: other.projectId } })) as ToolResult;
      assert.equal(elsewhere.structuredContent.error.code, 'not_found');
    } finally {
      await client.close();
    }
    const revoked = await createApiKey(database.db, { workspaceId, scopes: ['mcp'] });
    await database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', revoked.id).execute();
    const post = (key: string) => fetch(`${url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal((await post(revoked.key)).status, 401);
    await database.db.updateTable('workspaces').set({ plan: 'free' }).where('id', '=', other.workspaceId).execute();
    const free = (await createApiKey(database.db, { workspaceId: other.workspaceId, scopes: ['mcp'] })).key;
    assert.equal((await post(free)).status, 403);
  });

  test('over stdio: sightline mcp with SIGHTLINE_API_KEY', async () => {
    const dataDir = scratchDataDir('mcp-stdio');
    const env = cliEnv(dataDir, { server: true });
    try {
      const { id: ws } = await json(['workspace', 'create', '--name', 'Agents', '--plan', 'growth'], env);
      const { id: project } = await json(['project', 'create', '--workspace', ws, '--name', 'Acme', '--domain', 'acme.com'], env);
      const { key } = await json(['key', 'create', '--workspace', ws, '--scopes', 'mcp'], env);
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'src', 'cli', 'main.ts'), 'mcp'], env: { ...env, SIGHTLINE_API_KEY: key } as Record<string, string> }));
      try {
        const listed = (await client.callTool({ name: 'list_projects', arguments: {} })) as ToolResult;
        assert.deepEqual(listed.structuredContent.projects.map((p: { id: string }) => p.id), [project]);
      } finally {
        await client.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

async function client_prompts(client: Client): Promise<string[]> {
  return (await client.listPrompts()).prompts.map((p) => p.name).sort();
}
