/**
 * Records the request and response examples of the API reference (/docs) into
 * src/docs/examples.json: seeds the demo into a fresh database, calls every operation once
 * (src/docs/record-examples.ts) and writes what it answered. Run it after a route is added or its
 * answer changes, and commit the file; src/docs/openapi-docs.test.ts says when it is due.
 *
 *   node scripts/openapi-examples.ts [--check]
 *
 * The database is a fresh one on the tests' embedded PostgreSQL (or on DATABASE_URL's server), dropped
 * afterwards. `--check` writes nothing and exits 1 when an operation has no example or an example
 * names an operation that is gone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openTestDatabase, testApp } from '../test/helpers.ts';
import { operationsOf, type ExamplesFile } from '../src/docs/attach-examples.ts';
import { recordExamples } from '../src/docs/record-examples.ts';

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const target = fileURLToPath(new URL('../src/docs/examples.json', import.meta.url));

const database = await openTestDatabase();
try {
  if (values.check) {
    const app = await testApp(database.db);
    const documented = operationsOf((await app.inject({ url: '/api/v1/openapi.json' })).json());
    await app.close();
    const recorded = Object.keys((JSON.parse(readFileSync(target, 'utf8')) as ExamplesFile).operations);
    const missing = documented.filter((o) => !recorded.includes(o));
    const stale = recorded.filter((o) => !documented.includes(o));
    for (const o of missing) console.error(`no example: ${o}`);
    for (const o of stale) console.error(`example of no operation: ${o}`);
    process.exitCode = missing.length + stale.length > 0 ? 1 : 0;
  } else {
    const examples = await recordExamples(database.db);
    writeFileSync(target, `${JSON.stringify(examples, null, 2)}\n`);
    console.log(`wrote ${Object.keys(examples.operations).length} operations' examples to src/docs/examples.json`);
  }
} finally {
  await database.close();
}
