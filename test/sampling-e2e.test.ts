import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { cliEnv, json, run, scratchDataDir, startServer, stopServer, type ServerProcess } from './processes.ts';
import { startFakeProvider, type FakeProvider } from './fakes/fake-provider.ts';
import { privateDatabaseUrl } from './helpers.ts';

/**
 * From `prompt add` to the ranking endpoint, as an operator runs it: the CLI and the server as
 * processes, SerpApi played by a local server at the base URL the operator configured (a loopback
 * address: an operator's base URL may be private, unlike a webhook's).
 */
describe('sampling end to end: prompt add, sample, the numbers', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let serp: FakeProvider;
  let server: ServerProcess | undefined;
  let own: Awaited<ReturnType<typeof privateDatabaseUrl>>;

  before(async () => {
    serp = await startFakeProvider('127.0.0.1', (request) => {
      const q = new URL(request.url, 'http://x').searchParams.get('q') ?? '';
      if (q.includes('no overview')) return { json: { search_metadata: { status: 'Success' }, organic_results: [] } };
      return {
        json: {
          search_metadata: { status: 'Success' },
          ai_overview: {
            text_blocks: [{ type: 'paragraph', snippet: 'Acme is the usual pick; Globex is cheaper.', reference_indexes: [0] }],
            references: [{ title: 'Acme pricing', link: 'https://acme.com/pricing', source: 'acme.com', index: 0 }],
          },
        },
      };
    });
    dataDir = scratchDataDir('sampling-e2e');
    // On a server, a database of its own: another suite's server samples every project's due checks
    // with its own fake provider (this suite's "no overview" check came back answered).
    own = await privateDatabaseUrl();
    env = { ...cliEnv(dataDir, { server: true }), ...(own ? { DATABASE_URL: own.url } : {}), SERPAPI_API_KEY: 'serp-test-key', SERPAPI_BASE_URL: serp.origin };
  });
  after(async () => {
    if (server) await stopServer(server.child);
    await serp.close();
    await own?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('prompt add -> sample --wait -> ranking, runs and usage agree', async () => {
    const { id: workspaceId } = await json(['workspace', 'create', '--name', 'Sampled', '--plan', 'growth'], env);
    const { id: projectId } = await json(['project', 'create', '--workspace', workspaceId, '--name', 'Acme', '--domain', 'acme.com'], env);
    await json(['competitor', 'add', '--project', projectId, '--name', 'Globex', '--domain', 'globex.com'], env);
    const providers = (await json(['providers', 'list'], env)).providers;
    assert.deepEqual(
      providers.map((p: { engine: string; configured: boolean }) => `${p.engine}:${p.configured}`),
      ['chatgpt:false', 'perplexity:false', 'gemini:false', 'google_ai_overviews:true', 'google_ai_mode:true', 'claude:false', 'copilot:true'],
    );
    assert.deepEqual(Object.keys(providers[0]), ['engine', 'provider', 'configured', 'baseUrl', 'model']);

    const { id: promptId } = await json(['prompt', 'add', '--project', projectId, '--text', 'best crm', '--topic', 'CRM', '--engine', 'google_ai_overviews', '--location', 'US', '--location', 'UK', '--samples', '3'], env);
    await json(['prompt', 'add', '--project', projectId, '--text', 'crm with no overview', '--engine', 'google_ai_overviews'], env);
    const listed = (await json(['prompt', 'list', '--project', projectId], env)).prompts;
    assert.deepEqual(listed[0], { id: promptId, text: 'best crm', topic: 'CRM', branded: false, locations: ['US', 'UK'], engines: ['google_ai_overviews'], samples: 3, cadence: 'daily' });
    assert.deepEqual(await json(['prompt', 'estimate', '--project', projectId], env), { checksPerMonth: 210, creditsPerMonth: 210, usdPerMonth: 2.1 });

    const sampled = await json(['sample', '--project', projectId, '--wait'], env);
    assert.deepEqual(sampled, { checks: 7, ok: 6, failed: 0, noAnswer: 1, skipped: 0, creditsCharged: 7 });
    assert.equal(serp.requests.length, 7);

    const { key } = await json(['key', 'create', '--workspace', workspaceId, '--scopes', 'read'], env);
    server = await startServer({ ...env, SIGHTLINE_SAMPLING: '0' });
    const get = async (path: string) => {
      const res = await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200, path);
      return ((await res.json()) as { data: any }).data;
    };
    const ranking = (await get(`/api/v1/projects/${projectId}/visibility/ranking`)).rows;
    const acme = ranking.find((r: { name: string }) => r.name === 'Acme');
    assert.equal(acme.sampleSize, 6, 'the unanswered check is in no sample');
    assert.equal(acme.mentionRuns, 6);
    assert.equal(acme.visibility, 100);
    assert.equal(acme.citations, 6);
    const runs = (await get(`/api/v1/projects/${projectId}/runs?limit=100`)).runs;
    assert.equal(runs.length, 7);
    assert.deepEqual(runs.map((r: { status: string }) => r.status).sort(), ['no_answer', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    const detail = await get(`/api/v1/projects/${projectId}/runs/${runs.find((r: { status: string }) => r.status === 'ok').id}`);
    assert.equal(detail.provider, 'serpapi');
    assert.equal(detail.surface, 'serp');
    assert.equal(detail.model, 'google');
    assert.match(detail.answer, /Acme is the usual pick/);
    assert.deepEqual(detail.citations.map((c: { url: string }) => c.url), ['https://acme.com/pricing']);
    const usage = await get('/api/v1/usage');
    assert.equal(usage.credits.consumed, 7);
    const prompts = (await get(`/api/v1/projects/${projectId}/prompts`)).prompts;
    assert.equal(prompts.length, 2);

    const removed = await json(['prompt', 'remove', promptId], env);
    assert.equal(removed.id, promptId);
    assert.equal((await get(`/api/v1/projects/${projectId}/prompts`)).prompts.length, 1);
    assert.equal((await get(`/api/v1/projects/${projectId}/runs?limit=100`)).runs.length, 7, "a removed prompt's runs stay");
    const bad = await run(['prompt', 'add', '--project', projectId, '--text', 'x', '--engine', 'bing', '--json'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /engines/);
  });
});
