import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedDemoIfEmpty } from '../src/demo/seed-demo.ts';
import { openPrivateTestDatabase } from './helpers.ts';

// Demo seeding was not atomic: a crash after the workspace was created left a database whose demo
// keys were never printed and that was never seeded again (it was no longer empty).
describe('the start-up demo seeding', () => {
  test('all or nothing: a failure half-way leaves the database empty, and the next start seeds it', async () => {
    const database = await openPrivateTestDatabase();
    try {
      // Demo runs dated 2019 are refused half-way through the seeding (after the workspace, the
      // brand and its rivals were written): the transaction takes them all back.
      await assert.rejects(seedDemoIfEmpty(database.db, new Date('2019-06-01T12:00:00Z')), /demo run refused/);
      assert.deepEqual(await database.db.selectFrom('workspaces').select('id').execute(), []);
      assert.deepEqual(await database.db.selectFrom('projects').select('id').execute(), []);
      const seeded = await seedDemoIfEmpty(database.db);
      assert.ok(seeded);
      assert.match(seeded.keys.read, /^sl_/);
    } finally {
      await database.close();
    }
  });

  test('instances starting at once on an empty database seed once; one of them prints the keys', async () => {
    const database = await openPrivateTestDatabase();
    try {
      const results = await Promise.all([seedDemoIfEmpty(database.db), seedDemoIfEmpty(database.db), seedDemoIfEmpty(database.db)]);
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal((await database.db.selectFrom('workspaces').select('id').execute()).length, 1);
      assert.equal((await database.db.selectFrom('projects').select('id').execute()).length, 1);
      assert.equal(await seedDemoIfEmpty(database.db), undefined, 'a later start does not seed again');
    } finally {
      await database.close();
    }
  });
});
