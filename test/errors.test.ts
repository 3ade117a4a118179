import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { buildApp } from '../src/app.ts';
import type { Database } from '../src/db/database.ts';
import { BadRequestError, ConflictError, AppError } from '../src/http/errors.ts';
import { IsoDate, Uuid } from '../src/http/schemas.ts';
import { openTestDatabase } from './helpers.ts';

describe('the error body', () => {
  let database: Database;
  let app: FastifyInstance;
  const logged: string[] = [];

  before(async () => {
    database = await openTestDatabase();
    app = await buildApp({
      db: database.db,
      logger: {
        level: 'error',
        stream: { write: (line: string) => void logged.push(line) },
      },
    });
    // Probe routes exercising the shared handler, as every domain route does.
    app.get(
      '/probe/:id',
      {
        schema: {
          params: Type.Object({ id: Uuid }),
          querystring: Type.Object({ from: Type.Optional(IsoDate), n: Type.Optional(Type.Integer({ minimum: 1 })) }),
        },
      },
      async () => ({ ok: true }),
    );
    app.post('/probe', { schema: { body: Type.Object({ url: Type.String({ minLength: 1 }) }) } }, async () => ({ ok: true }));
    app.get('/boom', async () => {
      throw new Error('secret database detail: password=hunter2');
    });
    app.get('/typed', async () => {
      throw new BadRequestError('`from` (2026-11-30) is after `to` (2026-11-01)', { from: 'must not be after to' });
    });
    app.get('/conflict', async () => {
      throw new ConflictError('already there');
    });
    app.get('/quota', async () => {
      throw new AppError('quota_exceeded', 'no credits left');
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  test('unknown route: 404 not_found', async () => {
    const res = await app.inject({ url: '/api/v1/does-not-exist' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
    assert.equal(res.json().error.details, undefined);
  });

  test('validation failure: 400 bad_request with details naming every offending field', async () => {
    const res = await app.inject({ url: '/probe/not-a-uuid?from=2026-13-45&n=0' });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.error.code, 'bad_request');
    assert.ok(body.error.message.length > 0);
    // The params fail first (Fastify validates params before the query string).
    assert.deepEqual(Object.keys(body.error.details), ['id']);

    const query = await app.inject({ url: '/probe/6f1d0c2a-7c1e-4f0a-9a51-000000000001?from=2026-13-45&n=0' });
    assert.equal(query.statusCode, 400);
    assert.deepEqual(Object.keys(query.json().error.details).sort(), ['from', 'n']);
  });

  test('missing body field: details names it', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe', payload: {} });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().error.details, { url: 'is required' });
  });

  test('body that is not JSON: 400 bad_request', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe', payload: '{nope', headers: { 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'bad_request');
  });

  test('unsupported media type: 415 with code bad_request', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe', payload: 'x', headers: { 'content-type': 'application/x-nope' } });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().error.code, 'bad_request');
  });

  test('body over the limit: 413 with code bad_request', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/probe',
      payload: JSON.stringify({ url: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error.code, 'bad_request');
  });

  test('unexpected error: 500 internal, message hidden, error logged', async () => {
    const res = await app.inject({ url: '/boom' });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error.code, 'internal');
    assert.ok(!res.body.includes('hunter2'));
    assert.ok(logged.some((line) => line.includes('secret database detail')), 'the cause is in the log');
  });

  test('typed domain errors keep their code, status, message and details', async () => {
    const bad = await app.inject({ url: '/typed' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), {
      error: { code: 'bad_request', message: '`from` (2026-11-30) is after `to` (2026-11-01)', details: { from: 'must not be after to' } },
    });
    const conflict = await app.inject({ url: '/conflict' });
    assert.equal(conflict.statusCode, 409);
    assert.equal(conflict.json().error.code, 'conflict');
    const quota = await app.inject({ url: '/quota' });
    assert.equal(quota.statusCode, 402);
    assert.equal(quota.json().error.code, 'quota_exceeded');
  });
});
