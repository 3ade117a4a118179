import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { createApiKey } from '../src/auth/create-api-key.ts';
import type { Database } from '../src/db/database.ts';
import { connectRedis, openRedis } from '../src/server.ts';
import { bearer, createFixture, openTestDatabase, redisUrl, testApp, type Fixture } from './helpers.ts';

function assertNoRateLimitHeaders(res: LightMyRequestResponse): void {
  for (const name of Object.keys(res.headers)) {
    assert.ok(!name.toLowerCase().startsWith('x-ratelimit'), `unexpected header ${name}`);
    assert.ok(!name.toLowerCase().startsWith('ratelimit'), `unexpected header ${name}`);
  }
}

function assertLimited(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 429);
  assert.equal(res.json().error.code, 'rate_limited');
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers['retry-after']}`);
  assertNoRateLimitHeaders(res);
}

describe('per-key rate limit (in process)', () => {
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

  test('60 requests a minute by default, then 429 with Retry-After and no X-RateLimit headers', async () => {
    const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'] });
    for (let i = 0; i < 60; i++) {
      const res = await app.inject({ url: '/api/v1/projects', headers: bearer(key.key) });
      assert.equal(res.statusCode, 200, `request ${i + 1}`);
      assertNoRateLimitHeaders(res);
    }
    assertLimited(await app.inject({ url: '/api/v1/projects', headers: bearer(key.key) }));
  });

  test("a key's own limit applies, counted across all endpoints in one window", async () => {
    const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'], rateLimit: 3 });
    assert.equal((await app.inject({ url: '/api/v1/projects', headers: bearer(key.key) })).statusCode, 200);
    assert.equal((await app.inject({ url: '/api/v1/usage', headers: bearer(key.key) })).statusCode, 200);
    assert.equal((await app.inject({ url: '/api/v1/projects', headers: bearer(key.key) })).statusCode, 200);
    assertLimited(await app.inject({ url: '/api/v1/usage', headers: bearer(key.key) }));
  });

  test('one key over its limit does not limit another key of the same workspace', async () => {
    const a = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'], rateLimit: 1 });
    const b = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'], rateLimit: 1 });
    assert.equal((await app.inject({ url: '/api/v1/projects', headers: bearer(a.key) })).statusCode, 200);
    assertLimited(await app.inject({ url: '/api/v1/projects', headers: bearer(a.key) }));
    assert.equal((await app.inject({ url: '/api/v1/projects', headers: bearer(b.key) })).statusCode, 200);
  });

  test('public endpoints are not limited per key and unauthenticated calls are refused before counting', async () => {
    for (let i = 0; i < 70; i++) {
      assert.equal((await app.inject({ url: '/api/v1/openapi.json' })).statusCode, 200);
    }
    assert.equal((await app.inject({ url: '/api/v1/projects' })).statusCode, 401);
  });
});

describe('per-key rate limit shared through Redis', { skip: redisUrl ? false : 'REDIS_URL is not set' }, () => {
  let database: Database;
  let first: FastifyInstance;
  let second: FastifyInstance;
  let redisA: Redis;
  let redisB: Redis;
  let fx: Fixture;

  before(async () => {
    database = await openTestDatabase();
    redisA = await openRedis(redisUrl!);
    redisB = await openRedis(redisUrl!);
    assert.equal(await redisA.ping(), 'PONG');
    first = await testApp(database.db, { redis: redisA });
    second = await testApp(database.db, { redis: redisB });
    fx = await createFixture(database.db);
  });
  after(async () => {
    await first?.close();
    await second?.close();
    redisA?.disconnect();
    redisB?.disconnect();
    await database?.close();
  });

  test('two instances share one window per key', async () => {
    const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'], rateLimit: 4 });
    assert.equal((await first.inject({ url: '/api/v1/projects', headers: bearer(key.key) })).statusCode, 200);
    assert.equal((await second.inject({ url: '/api/v1/projects', headers: bearer(key.key) })).statusCode, 200);
    assert.equal((await first.inject({ url: '/api/v1/usage', headers: bearer(key.key) })).statusCode, 200);
    assert.equal((await second.inject({ url: '/api/v1/usage', headers: bearer(key.key) })).statusCode, 200);
    assertLimited(await first.inject({ url: '/api/v1/projects', headers: bearer(key.key) }));
    assertLimited(await second.inject({ url: '/api/v1/projects', headers: bearer(key.key) }));
  });
});

describe('when Redis cannot be reached', () => {
  let database: Database;
  let app: FastifyInstance;
  let redis: Redis;

  before(async () => {
    database = await openTestDatabase();
    // Nothing listens on port 1: every command fails at once.
    redis = connectRedis('redis://127.0.0.1:1');
    redis.on('error', () => {});
    app = await testApp(database.db, { redis });
  });
  after(async () => {
    await app.close();
    redis.disconnect();
    await database.close();
  });

  test('requests are served (fail open), not failed or held', async () => {
    const fx = await createFixture(database.db);
    const key = await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['read'], rateLimit: 1 });
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await app.inject({ url: '/api/v1/projects', headers: bearer(key.key) });
      assert.equal(res.statusCode, 200);
      assert.ok(Date.now() - started < 3_000, 'answered without waiting for Redis');
    }
  });
});
