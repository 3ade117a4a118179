import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';
import { registerOpenApi } from '../http/openapi.ts';
import { openApiRoute } from '../http/openapi-route.ts';
import { openTestDatabase, testApp } from '../../test/helpers.ts';
import { loadExamples, operationsOf } from './attach-examples.ts';
import { recordExamples } from './record-examples.ts';

const REGENERATE = 'regenerate them: node scripts/openapi-examples.ts';

type Json = Record<string, any>;

/** Each operation of the document with its method and path. */
function operations(document: Json): { id: string; operation: Json }[] {
  return operationsOf(document).map((id) => {
    const [method, path] = id.split(' ') as [string, string];
    return { id, operation: document.paths[path][method.toLowerCase()] };
  });
}

/** The success response an example belongs on: the operation's first 2xx. */
function success(operation: Json): [string, Json] | undefined {
  return Object.entries<Json>(operation.responses ?? {})
    .filter(([status]) => /^2\d\d$/.test(status))
    .sort(([a], [b]) => a.localeCompare(b))[0];
}

describe('the OpenAPI document behind /docs', () => {
  let database: Database;
  let app: FastifyInstance;
  let document: Json;

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db);
    document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
  });
  after(async () => {
    await app?.close();
    await database?.close();
  });

  test('names this service in `servers`: the request\'s address, or SIGHTLINE_PUBLIC_URL when set', async () => {
    assert.deepEqual(document.servers, [{ url: 'http://localhost:80', description: 'this Sightline service' }]);
    const other = await app.inject({ url: '/api/v1/openapi.json', headers: { host: 'sightline.test:8080' } });
    assert.equal(other.json().servers[0].url, 'http://sightline.test:8080');
    // SIGHTLINE_PUBLIC_URL wins over the request's host, as app.ts passes it to the route.
    const bare = Fastify();
    await registerOpenApi(bare);
    await bare.register(openApiRoute, { publicUrl: 'https://sightline.example.com' });
    try {
      const res = await bare.inject({ url: '/api/v1/openapi.json', headers: { host: 'internal:3000' } });
      assert.deepEqual(res.json().servers, [{ url: 'https://sightline.example.com', description: 'this Sightline service' }]);
    } finally {
      await bare.close();
    }
  });

  test('describes every tag an operation uses, and no tag none uses', () => {
    const used = new Set(operations(document).flatMap(({ operation }) => operation.tags ?? []));
    const described = new Map<string, string>((document.tags ?? []).map((t: Json) => [t.name, t.description]));
    for (const tag of used) assert.ok(described.get(tag)?.trim(), `tag "${tag}" has a description (src/http/openapi.ts TAGS)`);
    for (const tag of described.keys()) assert.ok(used.has(tag), `tag "${tag}" is described but no operation uses it`);
    for (const { id, operation } of operations(document)) assert.ok(operation.tags?.length, `${id} has a tag`);
  });

  test('every operation has an example on its success response, with its parameters and body', () => {
    const missing: string[] = [];
    for (const { id, operation } of operations(document)) {
      const [status, response] = success(operation) ?? [];
      if (status === undefined) missing.push(`${id}: no 2xx response`);
      else if (status !== '204' && response?.content?.['application/json']?.example === undefined) missing.push(`${id}: no example on ${status}`);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.required && parameter.example === undefined) missing.push(`${id}: no example for ${parameter.in} parameter ${parameter.name}`);
      }
      for (const [type, media] of Object.entries<Json>(operation.requestBody?.content ?? {})) {
        if (media.example === undefined) missing.push(`${id}: no example of its ${type} body`);
      }
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (/^[45]/.test(status) && response.content && response.content['application/json']?.example === undefined) missing.push(`${id}: no example of its ${status}`);
      }
    }
    assert.deepEqual(missing, [], REGENERATE);
  });

  test('every example is of an operation the document has', () => {
    const documented = new Set(operationsOf(document));
    const stale = Object.keys(loadExamples().operations).filter((o) => !documented.has(o));
    assert.deepEqual(stale, [], REGENERATE);
  });

  test('every example answer (success and error) fits its response schema (an answer that changed shape needs a new example)', () => {
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const misfits: string[] = [];
    let checked = 0;
    for (const { id, operation } of operations(document)) {
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const media = response.content?.['application/json'];
        if (!media?.schema || media.example === undefined) continue;
        const validate = ajv.compile({ ...media.schema, components: document.components });
        if (!validate(media.example)) misfits.push(`${id} ${status}: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    }
    assert.ok(checked > 100, `${checked} examples checked`);
    assert.deepEqual(misfits, [], REGENERATE);
  });

  test('the sign-in and management operations say they take the session, and its CSRF token on changes', () => {
    assert.equal(document.paths['/app/session'].post.security, undefined);
    assert.deepEqual(document.paths['/app/session'].get.security, [{ sessionCookie: [] }]);
    assert.deepEqual(document.paths['/app/api/projects'].get.security, [{ sessionCookie: [] }]);
    assert.deepEqual(document.paths['/app/api/projects'].post.security, [{ sessionCookie: [], csrfToken: [] }]);
    assert.deepEqual(document.paths['/api/v1/projects'].get.security, [{ bearerAuth: [] }]);
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['bearerAuth', 'csrfToken', 'sessionCookie']);
  });

  test('a route that declares no answer is documented as it answers: signing out is a 204', () => {
    assert.deepEqual(Object.keys(document.paths['/app/session'].delete.responses), ['204']);
  });

  test('example values are typed as their parameters are', () => {
    const plan = document.paths['/api/v1/projects/{id}/plan'].get.parameters.find((p: Json) => p.name === 'delta');
    assert.equal(typeof plan.example, 'number');
    const ingest = document.paths['/api/ingest/{projectId}'].post.requestBody.content['text/plain'];
    assert.equal(typeof ingest.example, 'string');
  });

  test('no secret is in an example', () => {
    const text = JSON.stringify(loadExamples());
    assert.doesNotMatch(text, /sl_(?!EXAMPLE)[A-Za-z0-9_-]{43}/);
    assert.doesNotMatch(text, /whsec_(?!EXAMPLE)/);
  });
});

describe('recording the examples', () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => {
    await database?.close();
  });

  test('calls every operation of the document with the demo data, successfully', async () => {
    const recorded = await recordExamples(database.db);
    const app = await testApp(database.db);
    try {
      const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
      const documented = operationsOf(document);
      const errorStatuses = new Set(operations(document).flatMap(({ operation }) => Object.keys(operation.responses).filter((s) => /^[45]/.test(s))));
      assert.deepEqual(Object.keys(recorded.errors).sort(), [...errorStatuses].sort(), 'one error example per documented error status');
      assert.deepEqual(Object.keys(recorded.operations).sort(), [...documented].sort(), 'src/docs/record-examples.ts makes one call per operation');
      assert.deepEqual(Object.keys(loadExamples().operations).sort(), [...documented].sort(), REGENERATE);
    } finally {
      await app.close();
    }
  });
});
