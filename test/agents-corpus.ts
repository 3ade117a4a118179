import { readFileSync } from 'node:fs';

/** The real-world corpus of user agents and referrers, kept in the repository: test/fixtures/agents/ (see its SOURCES.md). */
const CORPUS = new URL('./fixtures/agents/', import.meta.url);

/** Rows of a corpus TSV: `#` comment lines (anywhere) and the header row skipped, tab-separated. */
export function readTsv(file: string): string[][] {
  const lines = readFileSync(new URL(file, CORPUS), 'utf8')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return lines.slice(1).map((line) => line.split('\t'));
}

export const col = (row: string[], i: number) => row[i] ?? '';
