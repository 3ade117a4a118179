import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Database } from '../src/db/database.ts';
import { createOutbound, type Outbound } from '../src/outbound/outbound.ts';
import { parseResolveMap } from '../src/outbound/resolve-map.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { addWebhook } from '../src/webhooks/add-webhook.ts';
import { removeWebhook } from '../src/webhooks/remove-webhook.ts';
import { backoffMs, deliverDue, MAX_ATTEMPTS } from '../src/webhooks/deliver-webhooks.ts';
import { pruneWebhookDeliveries } from '../src/webhooks/prune-webhook-deliveries.ts';
import { publishChangeEvents } from '../src/webhooks/publish-change-events.ts';
import { verifySignature } from '../src/webhooks/sign-payload.ts';
import { listChanges } from '../src/changes/list-changes.ts';
import { createFixture, openTestDatabase } from './helpers.ts';

const day = (d: string, n: number, k: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: randomUUID(), engine: 'claude', prompt: 'p', ranAt: `${d}T0${i % 10}:00:00Z`, status: 'ok', mentions: i < k ? [{ subject: 'Acme' }] : [] }),
  );

describe('webhooks', () => {
  let database: Database;
  let receiver: Server;
  let port: number;
  let outbound: Outbound;
  let status = 200;
  let delayMs = 0;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const url = () => `http://hooks.test:${port}/hook`;

  before(async () => {
    database = await openTestDatabase();
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (c) => (body += c));
      request.on('end', () => {
        setTimeout(() => {
          received.push({ headers: request.headers, body });
          response.writeHead(status).end();
        }, delayMs);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    // The receiver is on loopback: reachable only because the operator mapped its name (SIGHTLINE_RESOLVE).
    outbound = createOutbound({ userAgent: 'test', resolve: parseResolveMap(`hooks.test:${port}:127.0.0.1,down.test:1:127.0.0.1`) });
  });
  after(async () => {
    await outbound.close();
    await new Promise((resolve) => receiver.close(resolve));
    await database.close();
  });

  test('each new event is POSTed once, signed, as /changes shows it; a failing receiver is retried with backoff until it accepts', async () => {
    const fx = await createFixture(database.db);
    const hook = await addWebhook(database.db, outbound, fx.workspaceId, url());
    assert.match(hook.secret, /^whsec_/);
    await importRuns(database.db, fx.projectId, [...day('2026-11-10', 20, 2), ...day('2026-11-11', 20, 18)]);
    const events = await listChanges(database.db, fx.projectId, '2026-11-01', '2026-11-20');
    assert.ok(events.length >= 2);

    // Detection wrote the events; the fan-out takes them from the table.
    const t0 = new Date();
    assert.ok((await publishChangeEvents(database.db, t0)) >= events.length);
    // Published once: a second pass adds no delivery for this webhook (other suites sharing a
    // server database may be publishing events of their own meanwhile).
    await publishChangeEvents(database.db, t0);
    const deliveries = await database.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).execute();
    assert.equal(deliveries.length, events.length, 'published once');

    // The receiver is down first.
    status = 503;
    const firstPass = await deliverDue(database.db, outbound, t0);
    // deliverDue works every due delivery; on a server database other suites' webhooks may be due too.
    assert.ok(firstPass.failed >= events.length);
    await deliverDue(database.db, outbound, t0);
    await deliverDue(database.db, outbound, t0);
    // Not due again before the backoff: one attempt each, however often the worker passed.
    const pending = await database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
    assert.ok(pending.every((d) => d.status === 'pending' && d.attempts === 1 && d.last_error === 'HTTP 503' && d.claimed_until === null));

    // Back up: after the backoff every event arrives, once, exactly as /changes shows it.
    status = 200;
    received.length = 0;
    const t1 = new Date(t0.getTime() + backoffMs(1) + 1_000);
    let delivered = 0;
    for (let pass = 0; pass < 5; pass++) delivered += (await deliverDue(database.db, outbound, t1)).delivered;
    assert.ok(delivered >= events.length);
    await deliverDue(database.db, outbound, new Date(t1.getTime() + 3_600_000));
    assert.equal(received.length, events.length, 'each once, never sent twice');
    for (const r of received) {
      const payload = JSON.parse(r.body);
      assert.equal(payload.type, 'change_event');
      assert.equal(payload.projectId, fx.projectId);
      assert.equal(r.headers['sightline-event-id'], payload.event.id);
      assert.deepEqual(payload.event, events.find((e) => e.id === payload.event.id), 'the body carries the public ChangeEvent');
      assert.ok(verifySignature(hook.secret, String(r.headers['sightline-signature']), r.body, t1));
      assert.ok(!verifySignature('whsec_wrong', String(r.headers['sightline-signature']), r.body, t1));
      assert.ok(!verifySignature(hook.secret, String(r.headers['sightline-signature']), `${r.body} `, t1), 'a changed body fails');
    }
    // Re-detection (a re-import) sends nothing new.
    await importRuns(database.db, fx.projectId, day('2026-11-11', 1, 1));
    await publishChangeEvents(database.db, t1);
    const before = received.length;
    await deliverDue(database.db, outbound, new Date(t1.getTime() + 7_200_000));
    assert.equal(received.length, before);
  });

  test('two workers and a slow receiver: each event reaches the endpoint once, at most four at a time', async () => {
    const fx = await createFixture(database.db);
    await addWebhook(database.db, outbound, fx.workspaceId, url());
    await importRuns(database.db, fx.projectId, [
      ...day('2026-11-10', 20, 2),
      ...day('2026-11-11', 20, 18),
      ...day('2026-11-12', 20, 2),
      ...day('2026-11-13', 20, 18),
      ...day('2026-11-14', 20, 2),
    ]);
    const events = await listChanges(database.db, fx.projectId, '2026-11-01', '2026-11-20');
    assert.ok(events.length >= 4, `${events.length} events`);
    await publishChangeEvents(database.db, new Date());
    status = 200;
    delayMs = 400;
    received.length = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    receiver.on('request', () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
    });
    receiver.on('request', (_req, res) => res.on('finish', () => inFlight--));
    const worker = async () => {
      for (let i = 0; i < 40 && received.length < events.length; i++) {
        await deliverDue(database.db, outbound, new Date());
        await sleep(20);
      }
    };
    await Promise.all([worker(), worker()]);
    delayMs = 0;
    receiver.removeAllListeners('request');
    receiver.on('request', () => undefined);
    const ids = received.map((r) => String(r.headers['sightline-event-id']));
    assert.equal(ids.length, events.length, 'every event arrived');
    assert.equal(new Set(ids).size, ids.length, 'none twice');
    assert.ok(maxInFlight <= 4, `at most four in flight to one endpoint (saw ${maxInFlight})`);
  });

  test('a webhook removed while events fan out: neither fails, and nothing is left queued for it', async () => {
    const fx = await createFixture(database.db);
    const kept = await addWebhook(database.db, outbound, fx.workspaceId, url());
    const gone = await addWebhook(database.db, outbound, fx.workspaceId, `${url()}/gone`);
    await importRuns(database.db, fx.projectId, [...day('2026-11-10', 20, 2), ...day('2026-11-11', 20, 18)]);
    await publishChangeEvents(database.db, new Date());
    const queued = (id: string) => database.db.selectFrom('webhook_deliveries').select('event_id').where('webhook_id', '=', id).execute();
    const [first] = await queued(gone.id);
    assert.ok(first, 'the webhook to remove has a delivery');
    await importRuns(database.db, fx.projectId, day('2026-11-12', 20, 2));
    const waiting = async (n: number) => {
      for (let i = 0; i < 500; i++) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%webhook%'`.execute(database.db);
        if (rows[0]!.n >= n) return;
        await sleep(10);
      }
      assert.fail(`${n} statements never waited`);
    };
    // The removal holds its webhook and waits on one of its deliveries, which another transaction holds.
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holds = new Promise<void>((resolve) => (held = resolve));
    const blocker = database.db.transaction().execute(async (tx) => {
      await tx.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', gone.id).where('event_id', '=', first.event_id).forUpdate().execute();
      held();
      await holding;
    });
    await holds;
    const removal = removeWebhook(database.db, fx.workspaceId, gone.id);
    await waiting(1);
    // The fan-out of the new event starts while the removal is under way.
    const fanOut = publishChangeEvents(database.db, new Date());
    await waiting(2);
    release();
    await blocker;
    assert.deepEqual(await removal, { id: gone.id });
    assert.ok((await fanOut) >= 1, 'the fan-out did not fail on the removed webhook');
    assert.deepEqual(await queued(gone.id), []);
    const events = await listChanges(database.db, fx.projectId, '2026-11-01', '2026-11-20');
    assert.ok(events.some((e) => e.day === '2026-11-12'), 'the new day made an event');
    assert.equal((await queued(kept.id)).length, events.length, 'the kept webhook has every event');
  });

  test('a delivery that keeps failing is given up after the last attempt', async () => {
    const fx = await createFixture(database.db);
    const hook = await addWebhook(database.db, outbound, fx.workspaceId, 'http://down.test:1/unreachable');
    await importRuns(database.db, fx.projectId, [...day('2026-11-10', 20, 2), ...day('2026-11-11', 20, 18)]);
    let clock = new Date();
    await publishChangeEvents(database.db, clock);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      for (let pass = 0; pass < 3; pass++) await deliverDue(database.db, outbound, clock);
      clock = new Date(clock.getTime() + backoffMs(attempt) + 1_000);
    }
    const rows = await database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
    assert.ok(rows.length > 0);
    assert.ok(rows.every((d) => d.status === 'failed' && d.attempts === MAX_ATTEMPTS), JSON.stringify(rows.map((r) => [r.status, r.attempts])));
    // Retention: given-up deliveries go after 30 days, delivered ones after 7; pending ones stay.
    const left = async () => (await database.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).execute()).length;
    await pruneWebhookDeliveries(database.db, new Date(clock.getTime() + 29 * 86_400_000));
    assert.equal(await left(), rows.length, 'kept for 30 days');
    await pruneWebhookDeliveries(database.db, new Date(clock.getTime() + 31 * 86_400_000));
    assert.equal(await left(), 0, 'then deleted');
  });

  test('webhook URLs that are private, loopback, link-local or metadata addresses are refused, at registration and when sending', async () => {
    const fx = await createFixture(database.db);
    for (const bad of ['http://127.0.0.1:8080/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'http://10.0.0.8/x', 'http://localhost/x']) {
      await assert.rejects(addWebhook(database.db, outbound, fx.workspaceId, bad), /public address/, bad);
    }
    await assert.rejects(addWebhook(database.db, outbound, fx.workspaceId, 'ftp://x.example/'), /http/);
    await assert.rejects(addWebhook(database.db, outbound, fx.workspaceId, 'not a url'), /absolute/);
    await assert.rejects(addWebhook(database.db, outbound, '00000000-0000-4000-8000-000000000000', 'https://x.example/'), /no workspace/);
    // A name that resolved publicly at registration and privately when sending (DNS rebinding).
    let answer = '93.184.216.34';
    const rebinding = createOutbound({ userAgent: 'test', lookup: async () => [answer] });
    const hook = await addWebhook(database.db, rebinding, fx.workspaceId, `http://rebind.test:${port}/hook`);
    answer = '127.0.0.1';
    await importRuns(database.db, fx.projectId, [...day('2026-11-10', 20, 2), ...day('2026-11-11', 20, 18)]);
    await publishChangeEvents(database.db, new Date());
    received.length = 0;
    for (let pass = 0; pass < 5; pass++) await deliverDue(database.db, rebinding, new Date());
    const rows = await database.db.selectFrom('webhook_deliveries').select(['status', 'last_error']).where('webhook_id', '=', hook.id).execute();
    assert.ok(rows.length > 0 && rows.every((r) => r.status === 'pending' && /blocked_address/.test(r.last_error ?? '')), JSON.stringify(rows));
    assert.equal(received.length, 0, 'nothing reached the private address');
    await rebinding.close();
  });
});
