import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration from the environment', () => {
  test('SIGHTLINE_IMPORT_BATCH: unset leaves the import its default; a whole number from 1 to 100,000; anything else refuses to start', () => {
    assert.equal(loadConfig({}).importBatch, undefined);
    assert.equal(loadConfig({ SIGHTLINE_IMPORT_BATCH: '1000' }).importBatch, 1000);
    for (const bad of ['0', '-5', '2.5', 'many', '100001']) assert.throws(() => loadConfig({ SIGHTLINE_IMPORT_BATCH: bad }), ConfigError, bad);
  });

  test('SIGHTLINE_SLOW_REQUEST_MS: 500 by default, whole milliseconds', () => {
    assert.equal(loadConfig({}).slowRequestMs, 500);
    assert.equal(loadConfig({ SIGHTLINE_SLOW_REQUEST_MS: '0' }).slowRequestMs, 0);
    assert.throws(() => loadConfig({ SIGHTLINE_SLOW_REQUEST_MS: 'fast' }), ConfigError);
  });
});
