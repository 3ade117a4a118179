import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { revokeApiKey } from '../src/auth/revoke-api-key.ts';
import type { Database } from '../src/db/database.ts';
import { createProject } from '../src/projects/create-project.ts';
import { updateWorkspace } from '../src/workspaces/update-workspace.ts';
import { buildApp } from '../src/app.ts';
import { bearer, createFixture, openTestDatabase, testApp, type Fixture } from './helpers.ts';

describe('authentication and scopes', () => {
  let database: Database;
  let app: FastifyInstance;
  let fx: Fixture;

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db);
    fx = await createFixture(database.db);
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  for (const [name, headers] of [
    ['no Authorization header', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['a Basic credential', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a malformed key', bearer('not-a-key')],
    ['an unknown well-formed key', bearer(`sl_${'A'.repeat(43)}`)],
  ] as const) {
    test(`401 for ${name}, on every authenticated endpoint`, async () => {
      for (const url of ['/api/v1/projects', '/api/v1/usage']) {
        const res = await get(url, headers);
        assert.equal(res.statusCode, 401, url);
        assert.equal(res.json().error.code, 'unauthorized');
        assert.equal(typeof res.json().error.message, 'string');
      }
    });
  }

  test('a revoked key gets 401 on the very next request', async () => {
    const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'] });
    assert.equal((await get('/api/v1/projects', bearer(key.key))).statusCode, 200);
    await revokeApiKey(database.db, key.id, new Date());
    const res = await get('/api/v1/projects', bearer(key.key));
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, 'unauthorized');
  });

  test('revocation is seen by another instance on the same database at once', async () => {
    const other = await testApp(database.db);
    try {
      const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'] });
      assert.equal((await other.inject({ url: '/api/v1/usage', headers: bearer(key.key) })).statusCode, 200);
      await revokeApiKey(database.db, key.id, new Date());
      assert.equal((await other.inject({ url: '/api/v1/usage', headers: bearer(key.key) })).statusCode, 401);
    } finally {
      await other.close();
    }
  });

  for (const scopes of [['ingest'], ['mcp'], ['mcp:write'], ['ingest', 'mcp', 'mcp:write']]) {
    test(`403 for a key with scopes ${scopes.join(',')} on read endpoints, never partial data`, async () => {
      const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes });
      for (const url of ['/api/v1/projects', '/api/v1/usage']) {
        const res = await get(url, bearer(key.key));
        assert.equal(res.statusCode, 403, url);
        assert.deepEqual(Object.keys(res.json()), ['error']);
        assert.equal(res.json().error.code, 'forbidden');
      }
    });
  }

  test('403 when the plan has no API access, 200 once access is granted, 403 once withdrawn', async () => {
    const free = await createFixture(database.db, { plan: 'free' });
    let res = await get('/api/v1/projects', bearer(free.readKey));
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'forbidden');

    await updateWorkspace(database.db, free.workspaceId, { apiAccess: true });
    assert.equal((await get('/api/v1/projects', bearer(free.readKey))).statusCode, 200);

    await updateWorkspace(database.db, free.workspaceId, { apiAccess: false });
    assert.equal((await get('/api/v1/usage', bearer(free.readKey))).statusCode, 403);
  });

  test('a downgrade to the free plan stops a key on the next request', async () => {
    const paid = await createFixture(database.db, { plan: 'starter' });
    assert.equal((await get('/api/v1/usage', bearer(paid.readKey))).statusCode, 200);
    await updateWorkspace(database.db, paid.workspaceId, { plan: 'free' });
    assert.equal((await get('/api/v1/usage', bearer(paid.readKey))).statusCode, 403);
  });

  test('401 comes before 403: an unknown key on a free workspace learns nothing', async () => {
    const res = await get('/api/v1/projects', bearer(`sl_${'B'.repeat(43)}`));
    assert.equal(res.statusCode, 401);
  });

  test('the bearer scheme is case-insensitive', async () => {
    const res = await get('/api/v1/projects', { authorization: `bearer ${fx.readKey}` });
    assert.equal(res.statusCode, 200);
  });

  test('keys are stored only as hashes', async () => {
    const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'], name: 'hash check' });
    const row = await database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(key.key), 'the secret must not be stored');
    assert.ok(!stored.includes(key.key.slice(11)), 'no part of the secret past its visible prefix is stored');
    assert.match(row.secret_hash, /^[0-9a-f]{64}$/);
    assert.equal(row.prefix, key.key.slice(0, 11));
  });

  test('secrets never reach the log', async () => {
    let logged = '';
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        logged += String(chunk);
        callback();
      },
    });
    const logging = await buildApp({ db: database.db, logger: { level: 'trace', stream } });
    try {
      await logging.inject({ url: '/api/v1/projects', headers: bearer(fx.readKey) });
      await logging.inject({ url: '/api/v1/nope', headers: bearer(fx.readKey) });
      await logging.inject({ url: `/api/v1/projects?key=x`, headers: { authorization: `Bearer ${fx.readKey}x` } });
    } finally {
      await logging.close();
    }
    assert.ok(logged.length > 0, 'the app logged something');
    assert.ok(!logged.includes(fx.readKey.slice(3)), 'no secret in the log');
  });
});

describe('project-scoped keys', () => {
  let database: Database;
  let app: FastifyInstance;

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db);
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  test('see only their own project in the list', async () => {
    const fx = await createFixture(database.db);
    const { id: second } = await createProject(database.db, fx.workspaceId, { name: 'Second', domain: 'second.io' });
    const scoped = await createApiKey(database.db, { workspaceId: fx.workspaceId, projectId: second, scopes: ['read'] });
    const res = await app.inject({ url: '/api/v1/projects', headers: bearer(scoped.key) });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data.projects, [{ id: second, name: 'Second', domain: 'second.io' }]);
  });
});
