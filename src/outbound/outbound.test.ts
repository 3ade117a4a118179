import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { isPublicAddress } from './address-policy.ts';
import { createOutbound, OutboundError, type OutboundFailure } from './outbound.ts';
import { parseResolveMap } from './resolve-map.ts';

async function failure(promise: Promise<unknown>): Promise<OutboundFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutboundError, String(error));
    return error.failure;
  }
  assert.fail('expected the request to fail');
}

describe('isPublicAddress', () => {
  test('private, loopback, link-local, metadata, multicast and reserved addresses are not public', () => {
    for (const address of [
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0',
      '224.0.0.1', '255.255.255.255', '198.18.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', 'ff02::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '::ffff:169.254.169.254', 'not an ip',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });
  test('public addresses are', () => {
    for (const address of ['1.1.1.1', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(address), true, address);
  });
});

describe('parseResolveMap (curl --resolve syntax)', () => {
  test('entries, IPv6 in brackets, and clear refusals', () => {
    const map = parseResolveMap('acme.test:80:127.0.0.1, Hook.Test:8443:[::1]');
    assert.equal(map.get('acme.test:80'), '127.0.0.1');
    assert.equal(map.get('hook.test:8443'), '::1');
    assert.equal(parseResolveMap(undefined).size, 0);
    assert.throws(() => parseResolveMap('acme.test:127.0.0.1'), /HOST:PORT:ADDRESS/);
    assert.throws(() => parseResolveMap('acme.test:80:localhost'), /HOST:PORT:ADDRESS/);
  });
});

describe('the guarded outbound client against local servers', () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big') return res.end('x'.repeat(100_000));
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 2_000);
      if (req.url === '/to-private') return res.writeHead(302, { location: `http://127.0.0.1:${port}/` }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      res.setHeader('x-ua', req.headers['user-agent'] ?? '');
      res.end(`hello ${req.method}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const mapped = () => createOutbound({ userAgent: 'SightlineTest/1', resolve: parseResolveMap(`local.test:${port}:127.0.0.1`) });

  test('a host the operator mapped reaches its private address, with the honest user agent', async () => {
    const client = mapped();
    const res = await client.request(`http://local.test:${port}/`);
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'hello GET');
    assert.equal(res.headers['x-ua'], 'SightlineTest/1');
    await client.close();
  });

  test('an origin the operator configured (a provider base URL) may be private; only that origin', async () => {
    const client = createOutbound({ userAgent: 'x', trusted: new Set([`127.0.0.1:${port}`]) });
    assert.equal((await client.request(`http://127.0.0.1:${port}/`)).status, 200);
    assert.equal(await failure(client.request(`http://127.0.0.1:${port + 1 === 65536 ? 1 : port + 1}/`)), 'blocked_address');
    assert.equal(await failure(client.request(`http://[::1]:${port}/`)), 'blocked_address');
    await client.close();
  });

  test('a private address is refused: literal, by name, and via a redirect', async () => {
    const client = mapped();
    assert.equal(await failure(client.request(`http://127.0.0.1:${port}/`)), 'blocked_address');
    assert.equal(await failure(client.request(`http://[::1]:${port}/`)), 'blocked_address');
    assert.equal(await failure(client.request(`http://local.test:${port}/to-private`, { maxRedirects: 3 })), 'blocked_address');
    const localhost = createOutbound({ userAgent: 'x' });
    assert.equal(await failure(localhost.request(`http://localhost:${port}/`)), 'blocked_address');
    await client.close();
    await localhost.close();
  });

  test('a rebinding name (public when checked, private when connecting) is refused at connect time', async () => {
    let calls = 0;
    // The check and the connection are one lookup here: whatever the name says at connect time is judged.
    const rebinding = createOutbound({ userAgent: 'x', lookup: async () => (calls++ === 0 ? ['127.0.0.1'] : ['93.184.216.34']) });
    assert.equal(await failure(rebinding.request(`http://rebind.test:${port}/`)), 'blocked_address');
    const mixed = createOutbound({ userAgent: 'x', lookup: async () => ['93.184.216.34', '10.0.0.5'] });
    assert.equal(await failure(mixed.request(`http://mixed.test:${port}/`)), 'blocked_address');
    await rebinding.close();
    await mixed.close();
  });

  test('body cap, time cap, redirect cap; DNS failures told apart', async () => {
    const client = mapped();
    const big = await client.request(`http://local.test:${port}/big`, { maxBytes: 1_000 });
    assert.equal(big.body.length, 1_000);
    assert.equal(big.truncated, true);
    assert.equal(await failure(client.request(`http://local.test:${port}/slow`, { timeoutMs: 300 })), 'timeout');
    assert.equal(await failure(client.request(`http://local.test:${port}/loop`, { maxRedirects: 5 })), 'too_many_redirects');
    const noRedirects = await client.request(`http://local.test:${port}/loop`);
    assert.equal(noRedirects.status, 302);
    const nx = createOutbound({ userAgent: 'x', lookup: async () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })) });
    assert.equal(await failure(nx.request('http://nowhere.test/')), 'dns_nxdomain');
    const again = createOutbound({ userAgent: 'x', lookup: async () => Promise.reject(Object.assign(new Error('try again'), { code: 'EAI_AGAIN' })) });
    assert.equal(await failure(again.request('http://flaky.test/')), 'dns_temporary');
    assert.equal(await failure(client.request('ftp://local.test/')), 'bad_url');
    await Promise.all([client.close(), nx.close(), again.close()]);
  });
});
