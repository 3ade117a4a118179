import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { createProject } from '../src/projects/create-project.ts';
import { bearer, createFixture, openTestDatabase, testApp } from './helpers.ts';

describe('GET /api/v1/projects', () => {
  let database: Database;
  let app: FastifyInstance;

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db);
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  test("lists the workspace's projects oldest first, with exactly id, name and domain", async () => {
    const fx = await createFixture(database.db);
    const names = ['Bravo', 'Alpha', 'Charlie'];
    const ids = [fx.projectId];
    for (const name of names) {
      ids.push((await createProject(database.db, fx.workspaceId, { name, domain: `https://www.${name}.com/` })).id);
    }
    const res = await app.inject({ url: '/api/v1/projects', headers: bearer(fx.readKey) });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const projects = res.json().data.projects;
    assert.deepEqual(projects.map((p: { id: string }) => p.id), ids);
    assert.deepEqual(projects[1], { id: ids[1], name: 'Bravo', domain: 'bravo.com' });
    for (const p of projects) assert.deepEqual(Object.keys(p).sort(), ['domain', 'id', 'name']);
  });

  test("never shows another workspace's projects", async () => {
    const mine = await createFixture(database.db);
    const theirs = await createFixture(database.db);
    const res = await app.inject({ url: '/api/v1/projects', headers: bearer(mine.readKey) });
    const ids = res.json().data.projects.map((p: { id: string }) => p.id);
    assert.deepEqual(ids, [mine.projectId]);
    assert.ok(!ids.includes(theirs.projectId));
  });

  test('an empty workspace lists no projects', async () => {
    const fx = await createFixture(database.db);
    await database.db.deleteFrom('competitors').where('project_id', '=', fx.projectId).execute();
    await database.db.deleteFrom('projects').where('id', '=', fx.projectId).execute();
    const res = await app.inject({ url: '/api/v1/projects', headers: bearer(fx.readKey) });
    assert.deepEqual(res.json(), { data: { projects: [] } });
  });
});
