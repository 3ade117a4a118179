import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listProviders } from './list-providers.ts';
import { loadSamplingConfig } from './providers-config.ts';

test('the providers list never shows a key, nor credentials or a query written into a base URL', () => {
  const { providers } = loadSamplingConfig({ OPENAI_API_KEY: 'sk-secret', OPENAI_BASE_URL: 'https://team:hunter2@gateway.example/openai/v1?token=abc', SERPAPI_BASE_URL: 'https://serpapi.com' });
  const listed = listProviders(providers);
  assert.deepEqual(listed[0], { engine: 'chatgpt', provider: 'openai', configured: true, baseUrl: 'https://gateway.example/openai/v1', model: 'gpt-5-mini' });
  assert.equal(listed.find((p) => p.engine === 'copilot')!.baseUrl, 'https://serpapi.com', 'a plain base URL as configured');
  assert.ok(!/sk-secret|hunter2|token/.test(JSON.stringify(listed)));
});
