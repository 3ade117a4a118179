#!/usr/bin/env node
// The `sightline` command. The CLI is TypeScript run by Node's type stripping (Node 24); when this
// shim is started by an older Node, it hands over to the Node 24 the project pins (the `node`
// package), so `npx sightline` works whatever node is first on PATH.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const main = join(root, 'src', 'cli', 'main.ts');
const [major] = process.versions.node.split('.').map(Number);

if (major >= 24) {
  const { cliMain } = await import(main);
  await cliMain(process.argv.slice(2));
} else {
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(pinned)) {
    console.error('sightline: needs Node 24; run `npm ci` to install the pinned one');
    process.exit(1);
  }
  const result = spawnSync(pinned, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
