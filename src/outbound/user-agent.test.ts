import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { configuredUserAgent, serviceUserAgent } from './user-agent.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

test('the service names itself by its public address, else by where a server of its configuration listens (CLI and server alike)', () => {
  assert.equal(serviceUserAgent('https://sightline.example/'), `SightlineBot/${VERSION} (+https://sightline.example/bots)`);
  assert.equal(configuredUserAgent({ publicUrl: 'https://sightline.example', host: '0.0.0.0', port: 8080 }), `SightlineBot/${VERSION} (+https://sightline.example/bots)`);
  assert.equal(configuredUserAgent({ publicUrl: undefined, host: '127.0.0.1', port: 3000 }), `SightlineBot/${VERSION} (+http://127.0.0.1:3000/bots)`);
});
