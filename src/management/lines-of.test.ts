import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import fc from 'fast-check';
import { linesOf } from './lines-of.ts';

/** What `sightline runs import FILE` reads: readline over the file, as the CLI opens it. */
async function readlineLines(text: string, chunk: number): Promise<string[]> {
  const chunks = [];
  for (let i = 0; i < text.length; i += chunk) chunks.push(text.slice(i, i + chunk));
  const lines: string[] = [];
  for await (const line of createInterface({ input: Readable.from(chunks), crlfDelay: Infinity })) lines.push(line);
  return lines;
}

test('an uploaded run file splits into the lines the CLI reads from the same file, whatever its line ends', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: fc.constantFrom('a', '{', ' ', '\r', '\n', 'é') }), fc.integer({ min: 1, max: 7 }), async (text, chunk) => {
      assert.deepEqual([...linesOf(text)], await readlineLines(text, chunk));
    }),
    { numRuns: 500 },
  );
  assert.deepEqual([...linesOf('a\r\nb\rc\n\nd\n')], ['a', 'b', 'c', '', 'd']);
  assert.deepEqual([...linesOf('')], []);
});
