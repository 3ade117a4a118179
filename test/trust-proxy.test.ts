import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openTestDatabase } from './helpers.ts';

// SIGHTLINE_TRUST_PROXY=1 believed the left-most X-Forwarded-For entry, which the client writes:
// the beacon's per-address limit could be dodged with a made-up header.
describe('SIGHTLINE_TRUST_PROXY', () => {
  test('parsed as no proxy, a hop count, or the proxies\' addresses; anything else refused', () => {
    const trust = (value: string | undefined) => loadConfig({ SIGHTLINE_TRUST_PROXY: value }).trustProxy;
    assert.equal(trust(undefined), false);
    assert.equal(trust('0'), false);
    assert.equal(trust('1'), 1);
    assert.equal(trust('true'), 1);
    assert.equal(trust('2'), 2);
    assert.deepEqual(trust('10.0.0.0/8, 192.168.1.1,::1,fd00::/8'), ['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8']);
    for (const bad of ['yes', '10.0.0.0/33', 'proxy.internal', '1.2.3.4/8/1']) assert.throws(() => trust(bad), ConfigError, bad);
  });

  test('the client is the address the trusted hop saw, never the left-most entry', async () => {
    const database = await openTestDatabase();
    try {
      const ipOf = async (trustProxy: ReturnType<typeof loadConfig>['trustProxy'], forwarded: string) => {
        const app = await buildApp({ db: database.db, trustProxy });
        app.get('/whoami', async (request) => ({ ip: request.ip }));
        await app.ready();
        const res = await app.inject({ url: '/whoami', remoteAddress: '10.0.0.2', headers: { 'x-forwarded-for': forwarded } });
        await app.close();
        return res.json().ip;
      };
      const forged = '6.6.6.6, 203.0.113.9';
      assert.equal(await ipOf(loadConfig({ SIGHTLINE_TRUST_PROXY: '1' }).trustProxy, forged), '203.0.113.9');
      assert.equal(await ipOf(loadConfig({ SIGHTLINE_TRUST_PROXY: '2' }).trustProxy, '6.6.6.6, 203.0.113.9, 10.0.0.1'), '203.0.113.9');
      assert.equal(await ipOf(loadConfig({ SIGHTLINE_TRUST_PROXY: '10.0.0.0/8' }).trustProxy, forged), '203.0.113.9');
      assert.equal(await ipOf(loadConfig({ SIGHTLINE_TRUST_PROXY: '0' }).trustProxy, forged), '10.0.0.2');
      // An address not of a trusted proxy: its header is not believed.
      assert.equal(await ipOf(loadConfig({ SIGHTLINE_TRUST_PROXY: '192.168.0.0/16' }).trustProxy, forged), '10.0.0.2');
    } finally {
      await database.close();
    }
  });

  test('the beacon counts an IPv6 client by its /64: rotating addresses inside it does not escape the limit', async () => {
    const database = await openTestDatabase();
    const app = await buildApp({ db: database.db });
    try {
      const beacon = (remoteAddress: string) =>
        app.inject({ method: 'POST', url: '/api/beacon', remoteAddress, headers: { 'content-type': 'application/json' }, payload: { projectId: '00000000-0000-4000-8000-000000000000', url: 'https://x.example/' } });
      const statuses: number[] = [];
      for (let i = 0; i < 121; i++) statuses.push((await beacon(`2001:db8:aa:bb:${i.toString(16)}::1`)).statusCode);
      assert.ok(statuses.slice(0, 120).every((s) => s === 200), JSON.stringify(statuses.slice(0, 120)));
      assert.equal(statuses[120], 429, 'the 121st from the same /64 is over the limit');
      assert.equal((await beacon('2001:db8:aa:cc::1')).statusCode, 200, 'another /64 is another client');
    } finally {
      await app.close();
      await database.close();
    }
  });
});
