import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { clientAddressKey } from './client-key.ts';

describe('clientAddressKey', () => {
  test('IPv4 as it is; IPv6 by its /64, whatever its spelling', () => {
    assert.equal(clientAddressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(clientAddressKey('2001:0db8:0001:0002::1'), '2001:db8:1:2::/64');
    assert.equal(clientAddressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientAddressKey('::1'), '0:0:0:0::/64');
  });

  test('property: every address of one /64 is one client; another /64 is another', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), fc.array(group, { minLength: 4, maxLength: 4 }), (a, tail) => {
        const one = a.join(':');
        const other = [...a.slice(0, 4), ...tail].join(':');
        assert.equal(clientAddressKey(one), clientAddressKey(other));
        const elsewhere = [a[0], a[1], a[2], ((parseInt(a[3]!, 16) + 1) % 0x10000).toString(16), ...a.slice(4)].join(':');
        assert.notEqual(clientAddressKey(one), clientAddressKey(elsewhere));
      }),
    );
  });
});
