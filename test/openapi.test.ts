import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { toOpenApi30 } from '../src/http/openapi.ts';
import { openTestDatabase, testApp } from './helpers.ts';

describe('GET /api/v1/openapi.json', () => {
  let database: Database;
  let app: FastifyInstance;
  let document: Record<string, any>;

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db);
    const res = await app.inject({ url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    document = res.json();
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  test('is public, flat, CORS-open OpenAPI 3.0.3', async () => {
    const res = await app.inject({ url: '/api/v1/openapi.json', headers: { origin: 'https://elsewhere.example' } });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(document.openapi, '3.0.3');
    assert.equal(document.data, undefined);
  });

  test('is valid under swagger-parser', async () => {
    await SwaggerParser.validate(structuredClone(document) as never);
  });

  test('describes every read endpoint with its security, parameters, responses and errors', () => {
    assert.deepEqual(document.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: document.components.securitySchemes.bearerAuth.description,
    });
    for (const path of ['/api/v1/projects', '/api/v1/usage']) {
      const op = document.paths[path]?.get;
      assert.ok(op, `${path} is documented`);
      assert.deepEqual(op.security, [{ bearerAuth: [] }]);
      for (const status of ['200', '401', '403', '429', '500']) assert.ok(op.responses[status], `${path} ${status}`);
      assert.ok(op.responses['200'].content['application/json'].schema.properties.data, `${path} documents its envelope`);
    }
    const usage = document.paths['/api/v1/usage'].get.responses['200'].content['application/json'].schema.properties.data;
    assert.equal(Object.keys(usage.properties.pricing.properties.perAction.properties).length, 18);
    assert.equal(Object.keys(usage.properties.pricing.properties.perEngineCheck.properties).length, 7);
    assert.ok(document.components.schemas.ErrorBody, 'the error body is a shared component');
  });

  test('documents the analytics endpoints with their parameters, 404 and the shapes of points, rows and domains', () => {
    for (const path of ['/api/v1/projects/{id}/visibility/timeseries', '/api/v1/projects/{id}/visibility/ranking', '/api/v1/projects/{id}/citations', '/api/v1/projects/{id}/topics', '/api/v1/projects/{id}/changes']) {
      const op = document.paths[path]?.get;
      assert.ok(op, `${path} is documented`);
      assert.deepEqual(op.security, [{ bearerAuth: [] }]);
      const params = op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`);
      assert.ok(params.includes('path:id'), path);
      for (const status of ['200', '400', '401', '403', '404', '429', '500']) assert.ok(op.responses[status], `${path} ${status}`);
    }
    const timeseries = document.paths['/api/v1/projects/{id}/visibility/timeseries'].get;
    const names = timeseries.parameters.map((p: { name: string }) => p.name).sort();
    assert.deepEqual(names, ['branded', 'engineId', 'from', 'id', 'location', 'subjectId', 'subjectType', 'to', 'topicId']);
    const branded = timeseries.parameters.find((p: { name: string }) => p.name === 'branded');
    assert.deepEqual(branded.schema.enum, ['true', 'false']);
    const point = timeseries.responses['200'].content['application/json'].schema.properties.data.properties.series.items;
    assert.equal(point.properties.visibility.nullable, true);
    assert.ok(point.required.includes('ciLow') && point.required.includes('sampleSize'));
    assert.ok(!point.required.includes('rateWithheld'));
    const domain = document.paths['/api/v1/projects/{id}/citations'].get.responses['200'].content['application/json'].schema.properties.data.properties.domains.items;
    assert.deepEqual(domain.properties.sourceType.enum, ['owned', 'competitor', 'editorial', 'ugc', 'corporate', 'institutional', 'review', 'social', 'other']);
    assert.ok(document.paths['/api/v1/engines'].get);
    const changes = document.paths['/api/v1/projects/{id}/changes'].get;
    assert.deepEqual(changes.parameters.map((p: { name: string }) => p.name).sort(), ['from', 'id', 'to']);
    const event = changes.responses['200'].content['application/json'].schema.properties.data.properties.events.items;
    assert.equal(event.properties.engineLabel.nullable, true);
    assert.equal(event.properties.kind.enum.length, 7);
  });

  test('the public document is not behind auth', () => {
    assert.equal(document.paths['/api/v1/openapi.json'].get.security, undefined);
  });
});

describe('toOpenApi30', () => {
  test('turns JSON Schema nullability and constants into OpenAPI 3.0 forms', () => {
    assert.deepEqual(toOpenApi30({ anyOf: [{ type: 'number' }, { type: 'null' }], description: 'd' }), {
      type: 'number',
      description: 'd',
      nullable: true,
    });
    assert.deepEqual(toOpenApi30({ anyOf: [{ const: 'a', type: 'string' }, { const: 'b', type: 'string' }] }), {
      type: 'string',
      enum: ['a', 'b'],
    });
    assert.deepEqual(toOpenApi30({ type: ['string', 'null'] }), { type: 'string', nullable: true });
    assert.deepEqual(toOpenApi30({ type: 'object', patternProperties: { '^.*$': { type: 'string' } } }), {
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    assert.deepEqual(toOpenApi30({ $id: 'X', $schema: 'y', const: 3 }), { enum: [3], type: 'number' });
  });
});
