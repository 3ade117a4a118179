import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { bearer, createFixture, openTestDatabase, testApp, type Fixture } from './helpers.ts';

/** Sends raw bytes over a real socket and returns the status and the body. */
function raw(port: number, request: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (chunk) => {
      out += chunk;
      const [head, body] = out.split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(head ?? '')?.[1] ?? -1);
      if (body !== undefined && length >= 0 && Buffer.byteLength(body) >= length) {
        socket.destroy();
        resolve({ status: Number(head!.split(' ')[1]), body: JSON.parse(body) });
      }
    });
    socket.on('error', reject);
  });
}

// Every failure leaves in the error body, including what Fastify's router and Node's HTTP parser
// refuse before any route runs (they answered with their own bodies), and a path id that is a UUID
// only in a form PostgreSQL cannot read (`urn:uuid:...` answered 500).
describe('every failure in the envelope', () => {
  let database: Database;
  let app: FastifyInstance;
  let port: number;
  let fx: Fixture;
  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db);
    port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
    fx = await createFixture(database.db);
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  for (const [name, request, status] of [
    ['a bad percent-encoding (FST_ERR_BAD_URL)', 'GET /api/v1/projects/%zz HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n', 400],
    ['a malformed header', 'GET / HTTP/1.1\r\nHost x\r\n\r\n', 400],
    ['a path segment over the router limit (414)', `GET /api/v1/projects/${'a'.repeat(300)}/topics HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
    ['headers over the size limit (431)', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['a URL over the size limit (431)', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
  ] as const) {
    test(`${name}: ${status} with {error: {code: bad_request, message}}`, async () => {
      const res = await raw(port, request);
      assert.equal(res.status, status);
      assert.equal(res.body.error.code, 'bad_request');
      assert.equal(typeof res.body.error.message, 'string');
      assert.deepEqual(Object.keys(res.body), ['error']);
    });
  }

  test('a request too slow to arrive (a body dripped in) ends in 408 with the error body, not a connection held open', { timeout: 10_000 }, async () => {
    const slow = await testApp(database.db, { requestTimeoutMs: 300 });
    const slowPort = Number(new URL(await slow.listen({ port: 0, host: '127.0.0.1' })).port);
    try {
      const started = Date.now();
      const res = await raw(slowPort, 'POST /api/beacon HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n{"path":');
      assert.equal(res.status, 408);
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.equal(res.body.error.code, 'bad_request');
      assert.ok(Date.now() - started < 5_000, `answered after ${Date.now() - started} ms`);
    } finally {
      await slow.close();
    }
  });

  test('a request answered before its body arrived gets that answer only: no 408 after it when the rest never comes', { timeout: 10_000 }, async () => {
    const slow = await testApp(database.db, { requestTimeoutMs: 300 });
    const slowPort = Number(new URL(await slow.listen({ port: 0, host: '127.0.0.1' })).port);
    try {
      const received = await new Promise<string>((resolve, reject) => {
        const socket = connect(slowPort, '127.0.0.1', () =>
          socket.write(`POST /api/ingest/${fx.projectId} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n127.0.0.1 - -`),
        );
        let out = '';
        socket.on('data', (chunk) => (out += chunk));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
      assert.match(received, /^HTTP\/1\.1 401 /);
      assert.equal(received.match(/HTTP\/1\.1 /g)?.length, 1, received);
      assert.match(received, /\r\nConnection: close\r\n/i);
      // A request that arrived whole keeps its connection for the next one.
      const whole = await new Promise<string>((resolve, reject) => {
        const socket = connect(slowPort, '127.0.0.1', () => socket.write('GET /api/v1/bots.json HTTP/1.1\r\nHost: x\r\n\r\n'));
        socket.once('data', (chunk) => {
          resolve(String(chunk));
          socket.destroy();
        });
        socket.on('error', reject);
      });
      assert.match(whole, /^HTTP\/1\.1 200 [\s\S]*\r\nConnection: keep-alive\r\n/i);
    } finally {
      await slow.close();
    }
  });

  test('a urn:uuid path id (or any form but the plain 36 characters) is 400 with details, on every path with an id', async () => {
    const urn = `urn:uuid:${fx.projectId}`;
    for (const path of ['topics', 'visibility/timeseries', 'visibility/ranking', 'citations', 'changes', 'traffic']) {
      for (const id of [encodeURIComponent(urn), urn, `{${fx.projectId}}`, fx.projectId.replaceAll('-', '')]) {
        const res = await app.inject({ url: `/api/v1/projects/${id}/${path}`, headers: bearer(fx.readKey) });
        assert.equal(res.statusCode, 400, `${path} ${id}: ${res.body}`);
        assert.equal(res.json().error.code, 'bad_request');
        assert.ok(res.json().error.details.id, `${path} ${id}`);
      }
    }
    const competitor = await app.inject({
      url: `/api/v1/projects/${fx.projectId}/visibility/timeseries?subjectType=competitor&subjectId=${encodeURIComponent(`urn:uuid:${fx.competitorId}`)}`,
      headers: bearer(fx.readKey),
    });
    assert.equal(competitor.statusCode, 400, competitor.body);
  });
});
