#!/usr/bin/env node
// The `sightline` command. The CLI is TypeScript run by Node's type stripping (Node 24); when this
// shim is started by an older Node, it hands over to the Node 24 the project pins (the `node`
// package), so `npx sightline` works whatever node is first on PATH.
import { spawn } from 'node:child_process';
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
  // The child is the command: signals sent to this shim (a supervisor's SIGTERM) reach it, and its
  // exit, by code or by signal, is this shim's.
  const child = spawn(pinned, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    console.error(`sightline: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  });
}
