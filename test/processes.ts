import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI and the server as separate processes, as a user runs them. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'src', 'cli', 'main.ts');
const SERVER = join(ROOT, 'src', 'server.ts');

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A data directory inside the repository (never outside it), for one suite. */
export function scratchDataDir(tag: string): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  return mkdtempSync(join(ROOT, '.tmp', `${tag}-`));
}

/** The environment of a command: a data directory and the demo off; DATABASE_URL only when asked. */
export function cliEnv(dataDir: string, options: { server?: boolean } = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SIGHTLINE_DATA_DIR: dataDir,
    SIGHTLINE_DEMO: '0',
    ...(options.server && process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv, input?: string): { child: ChildProcess; done: Promise<Result> } {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<Result>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

export function run(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Result> {
  return spawnCli(args, env, input).done;
}

/** Runs a command that must succeed and returns its one JSON object. */
export async function json(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<any> {
  const result = await run([...args, '--json'], env, input);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, 'exactly one JSON object on stdout');
  const parsed = JSON.parse(lines[0]!);
  assert.equal(typeof parsed, 'object');
  assert.ok(parsed !== null && !Array.isArray(parsed));
  return parsed;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
}

export function startServer(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER], { env: { ...env, PORT: '0', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return listening(child);
}

/** A started server's address, once it says where it listens (its stdout and stderr piped). */
export function listening(child: ChildProcess): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = (d: Buffer) => {
      output += d;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

export function stopServer(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
