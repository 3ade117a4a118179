import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../src/db/database.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { addWebhook } from '../src/webhooks/add-webhook.ts';
import { backoffMs, deliverDue, MAX_ATTEMPTS } from '../src/webhooks/deliver-webhooks.ts';
import { verifySignature } from '../src/webhooks/sign-payload.ts';
import { createFixture, openTestDatabase } from './helpers.ts';

const day = (d: string, n: number, k: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: randomUUID(), engine: 'claude', prompt: 'p', ranAt: `${d}T0${i % 10}:00:00Z`, status: 'ok', mentions: i < k ? [{ subject: 'Acme' }] : [] }),
  );

describe('webhooks', () => {
  let database: Database;
  let receiver: Server;
  let url: string;
  let status = 200;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    database = await openTestDatabase();
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (c) => (body += c));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await database.close();
  });

  test('each new event is POSTed once, signed; a failing receiver is retried with backoff until it accepts', async () => {
    const fx = await createFixture(database.db);
    const hook = await addWebhook(database.db, fx.workspaceId, url);
    assert.match(hook.secret, /^whsec_/);
    await importRuns(database.db, fx.projectId, [...day('2026-11-10', 20, 2), ...day('2026-11-11', 20, 18)]);
    const events = await database.db.selectFrom('change_events').select(['id', 'kind']).where('project_id', '=', fx.projectId).execute();
    assert.ok(events.length >= 2);

    // The receiver is down first.
    status = 503;
    const t0 = new Date();
    const firstPass = await deliverDue(database.db, t0);
    assert.equal(firstPass.failed, events.length);
    assert.equal(firstPass.delivered, 0);
    assert.equal((await deliverDue(database.db, t0)).delivered + (await deliverDue(database.db, t0)).failed, 0, 'not due again before the backoff');
    const pending = await database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
    assert.ok(pending.every((d) => d.status === 'pending' && d.attempts === 1 && d.last_error === 'HTTP 503'));

    // Back up: after the backoff every event arrives, once.
    status = 200;
    received.length = 0;
    const t1 = new Date(t0.getTime() + backoffMs(1) + 1_000);
    assert.equal((await deliverDue(database.db, t1)).delivered, events.length);
    assert.equal((await deliverDue(database.db, new Date(t1.getTime() + 3_600_000))).delivered, 0, 'never sent twice');
    assert.equal(received.length, events.length);
    for (const r of received) {
      const payload = JSON.parse(r.body);
      assert.equal(payload.type, 'change_event');
      assert.equal(payload.projectId, fx.projectId);
      assert.equal(r.headers['sightline-event-id'], payload.event.id);
      assert.ok(events.some((e) => e.id === payload.event.id));
      assert.ok(verifySignature(hook.secret, String(r.headers['sightline-signature']), r.body, t1));
      assert.ok(!verifySignature('whsec_wrong', String(r.headers['sightline-signature']), r.body, t1));
      assert.ok(!verifySignature(hook.secret, String(r.headers['sightline-signature']), `${r.body} `, t1), 'a changed body fails');
    }
    // Re-detection (a re-import) sends nothing new.
    await importRuns(database.db, fx.projectId, day('2026-11-11', 1, 1));
    assert.equal((await deliverDue(database.db, new Date(t1.getTime() + 7_200_000))).delivered, 0);
  });

  test('a delivery that keeps failing is given up after the last attempt', async () => {
    const fx = await createFixture(database.db);
    const hook = await addWebhook(database.db, fx.workspaceId, 'http://127.0.0.1:1/unreachable');
    await importRuns(database.db, fx.projectId, [...day('2026-11-10', 20, 2), ...day('2026-11-11', 20, 18)]);
    let clock = new Date();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await deliverDue(database.db, clock);
      clock = new Date(clock.getTime() + backoffMs(attempt) + 1_000);
    }
    const rows = await database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
    assert.ok(rows.length > 0);
    assert.ok(rows.every((d) => d.status === 'failed' && d.attempts === MAX_ATTEMPTS), JSON.stringify(rows.map((r) => [r.status, r.attempts])));
  });

  test('only http(s) URLs of an existing workspace', async () => {
    const fx = await createFixture(database.db);
    await assert.rejects(addWebhook(database.db, fx.workspaceId, 'ftp://x.example/'), /http/);
    await assert.rejects(addWebhook(database.db, fx.workspaceId, 'not a url'), /absolute/);
    await assert.rejects(addWebhook(database.db, '00000000-0000-4000-8000-000000000000', 'https://x.example/'), /no workspace/);
  });
});
