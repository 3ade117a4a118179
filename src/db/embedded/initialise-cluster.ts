import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { PostgresBinaries } from './binaries.ts';
import { ROLE, type ClusterLayout } from './layout.ts';
import type { OsUser } from './os-user.ts';

const run = promisify(execFile);

/**
 * Makes the data directory ready for a postmaster: the directories with the right owners, the
 * password, and the cluster itself (initdb) when there is none yet. Safe when several processes
 * do it at once: the password is published with link() (the first one wins, the others read it) and
 * the cluster is made in a private directory and renamed into place (the first rename wins).
 * Returns the password.
 */
export async function initialiseCluster(layout: ClusterLayout, binaries: PostgresBinaries, user: OsUser | undefined): Promise<string> {
  mkdirSync(layout.dataDir, { recursive: true });
  if (user) letPass(user, layout.dataDir);
  mkdirSync(layout.socketDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(layout.socketDir, user.uid, user.gid);

  const password = publishPassword(layout.passwordFile);
  if (existsSync(join(layout.pgdata, 'PG_VERSION'))) return password;

  const staging = mkdtempSync(join(layout.dataDir, 'pg.init-'));
  try {
    const pwfile = join(staging, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (user) {
      chownSync(staging, user.uid, user.gid);
      chownSync(pwfile, user.uid, user.gid);
    }
    const target = join(staging, 'pg');
    try {
      await run(
        binaries.initdb,
        [
          `--pgdata=${target}`,
          `--username=${ROLE}`,
          '--auth=scram-sha-256',
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          // Unicode-aware lower()/upper() and code-point order, the same on every machine.
          '--locale=C',
          '--locale-provider=builtin',
          '--builtin-locale=C.UTF-8',
          '--no-instructions',
        ],
        { env: postgresEnv(), ...(user ? { uid: user.uid, gid: user.gid } : {}) },
      );
    } catch (error) {
      const output = (error as { stderr?: string }).stderr?.trim();
      throw new Error(`initdb failed for ${layout.pgdata}: ${output || (error as Error).message}${reachHint(layout, user)}`);
    }
    try {
      renameSync(target, layout.pgdata);
    } catch (error) {
      // Another process made the cluster first: use theirs.
      if (!existsSync(join(layout.pgdata, 'PG_VERSION'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return password;
}

/**
 * The postmaster's account must pass through the data directory and every directory above it to
 * reach its cluster. A directory it cannot pass (a home directory of mode 0700, a private temp
 * directory) is given the execute bit alone, for that account only where `setfacl` exists, else for
 * others: passing through, never listing or reading. Said once on stderr.
 */
function letPass(user: OsUser, dataDir: string): void {
  const blocked: string[] = [];
  for (let dir = dataDir; ; dir = dirname(dir)) {
    const stat = statSync(dir);
    const bit = stat.uid === user.uid ? 0o100 : stat.gid === user.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) blocked.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of blocked) {
    try {
      execFileSync('setfacl', ['-m', `u:${user.name}:x`, dir], { stdio: 'ignore' });
    } catch {
      chmodSync(dir, (statSync(dir).mode & 0o7777) | 0o001);
    }
  }
  if (blocked.length > 0) {
    process.stderr.write(`sightline: let the "${user.name}" account (which runs the embedded PostgreSQL) pass through ${blocked.join(', ')}\n`);
  }
}

/** The environment the PostgreSQL programs run with: English messages, nothing inherited that could redirect them. */
export function postgresEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C' };
}

export function reachHint(layout: ClusterLayout, user: OsUser | undefined): string {
  return user ? ` (the "${user.name}" account runs the embedded PostgreSQL: it must be able to reach ${layout.dataDir})` : '';
}

/** The role's password: generated once and kept in the data directory, readable by its owner only. */
function publishPassword(file: string): string {
  if (existsSync(file)) return readPassword(file);
  const candidate = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(candidate, randomBytes(24).toString('base64url'), { mode: 0o600 });
  try {
    linkSync(candidate, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(candidate, { force: true });
  }
  return readPassword(file);
}

function readPassword(file: string): string {
  const password = readFileSync(file, 'utf8').trim();
  if (!password) throw new Error(`${file} is empty: restore the embedded database's password, or remove the data directory to start afresh`);
  return password;
}
