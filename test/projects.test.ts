import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProject } from '../src/projects/create-project.ts';
import { bearer, createFixture, useTestApp } from './helpers.ts';

describe('GET /api/v1/projects', () => {
  const ctx = useTestApp();

  test("lists the workspace's projects oldest first, with exactly id, name and domain", async () => {
    const fx = await createFixture(ctx.db);
    const names = ['Bravo', 'Alpha', 'Charlie'];
    const ids = [fx.projectId];
    for (const name of names) {
      ids.push((await createProject(ctx.db, fx.workspaceId, { name, domain: `https://www.${name}.com/` })).id);
    }
    const res = await ctx.app.inject({ url: '/api/v1/projects', headers: bearer(fx.readKey) });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const projects = res.json().data.projects;
    assert.deepEqual(projects.map((p: { id: string }) => p.id), ids);
    assert.deepEqual(projects[1], { id: ids[1], name: 'Bravo', domain: 'bravo.com' });
    for (const p of projects) assert.deepEqual(Object.keys(p).sort(), ['domain', 'id', 'name']);
  });

  test("never shows another workspace's projects", async () => {
    const mine = await createFixture(ctx.db);
    const theirs = await createFixture(ctx.db);
    const res = await ctx.app.inject({ url: '/api/v1/projects', headers: bearer(mine.readKey) });
    const ids = res.json().data.projects.map((p: { id: string }) => p.id);
    assert.deepEqual(ids, [mine.projectId]);
    assert.ok(!ids.includes(theirs.projectId));
  });

  test('an empty workspace lists no projects', async () => {
    const fx = await createFixture(ctx.db);
    await ctx.db.deleteFrom('competitors').where('project_id', '=', fx.projectId).execute();
    await ctx.db.deleteFrom('projects').where('id', '=', fx.projectId).execute();
    const res = await ctx.app.inject({ url: '/api/v1/projects', headers: bearer(fx.readKey) });
    assert.deepEqual(res.json(), { data: { projects: [] } });
  });
});
