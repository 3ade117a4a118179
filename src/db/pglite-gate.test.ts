import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import pg from 'pg';
import { openPglite } from './database.ts';
import { Gate, ReadyForQueryTracker, serveOverSocket } from './pglite-gate.ts';

function message(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.length);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, body.length + 4);
  out.set(body, 5);
  return out;
}

describe('ReadyForQueryTracker', () => {
  test('finds the status of the last ReadyForQuery however the stream is cut', () => {
    const anyMessage = fc.oneof(
      fc.record({ type: fc.constant(0x5a), body: fc.constantFrom('I', 'T', 'E').map((s) => new Uint8Array([s.charCodeAt(0)])) }),
      fc.record({ type: fc.integer({ min: 0x41, max: 0x59 }), body: fc.uint8Array({ maxLength: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(anyMessage, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 10 }), (messages, cuts) => {
        const stream = Buffer.concat(messages.map((m) => message(m.type, m.body)));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const tracker = new ReadyForQueryTracker();
        let start = 0;
        for (const p of [...points, stream.length]) {
          tracker.push(stream.subarray(start, p));
          start = p;
        }
        const last = messages.filter((m) => m.type === 0x5a).at(-1);
        assert.equal(tracker.status, last ? last.body[0] : undefined);
      }),
    );
  });
});

describe('Gate', () => {
  test('hands the resource to one owner at a time, in order', async () => {
    const gate = new Gate();
    const order: string[] = [];
    const release1 = await gate.acquire();
    const second = gate.acquire().then((release) => {
      order.push('second');
      release();
    });
    const third = gate.acquire().then((release) => {
      order.push('third');
      release();
    });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(order, []);
    release1();
    release1(); // twice is harmless
    await Promise.all([second, third]);
    assert.deepEqual(order, ['second', 'third']);
  });
});

describe('the embedded database shared over the socket', () => {
  let dir: string;
  let opened: Awaited<ReturnType<typeof openPglite>>;
  let server: Awaited<ReturnType<typeof serveOverSocket>>;

  const client = () => new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sightline-gate-'));
    opened = await openPglite(undefined);
    await sql`create table t (n integer not null, who text not null)`.execute(opened.db);
    server = await serveOverSocket(opened.pglite, opened.gate, join(dir, '.s.PGSQL.5432'));
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a socket client's rollback never takes a server write with it", async () => {
    const c = client();
    await c.connect();
    try {
      await c.query('begin');
      await c.query(`insert into t values (1, 'client')`);
      // The server writes while the client's transaction is open: it waits for the gate.
      const serverWrite = sql`insert into t values (2, 'server')`.execute(opened.db);
      await new Promise((r) => setTimeout(r, 50));
      await c.query('rollback');
      await serverWrite;
      const rows = await sql<{ n: number; who: string }>`select n, who from t order by n`.execute(opened.db);
      assert.deepEqual(rows.rows, [{ n: 2, who: 'server' }]);
    } finally {
      await c.end();
      await sql`delete from t`.execute(opened.db);
    }
  });

  test('concurrent clients and server queries never see each other\'s statements', async () => {
    const clients = [client(), client(), client()];
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const work = clients.map(async (c, i) => {
        for (let k = 0; k < 30; k++) {
          const n = i * 1000 + k;
          const res = await c.query('select $1::int as n, $2::text as who', [n, `c${i}`]);
          assert.deepEqual(res.rows, [{ n, who: `c${i}` }]);
        }
      });
      const serverSide = (async () => {
        for (let k = 0; k < 30; k++) {
          const res = await sql<{ n: number }>`select ${k}::int as n`.execute(opened.db);
          assert.deepEqual(res.rows, [{ n: k }]);
        }
      })();
      await Promise.all([...work, serverSide]);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  test('a client that disconnects inside a transaction has it rolled back and frees the database', async () => {
    const c = client();
    c.on('error', () => {}); // the client sees its own connection cut
    await c.connect();
    await c.query('begin');
    await c.query(`insert into t values (3, 'gone')`);
    c.connection.stream.destroy();
    const rows = await sql<{ n: number }>`select n from t`.execute(opened.db);
    assert.deepEqual(rows.rows, []);
  });
});
