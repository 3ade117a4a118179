import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where an embedded cluster keeps its files, all under the data directory:
 * - `pg/`: the cluster (PGDATA), owned by the user the postmaster runs as;
 * - `pg-password`: the generated password of the `sightline` role (mode 0600);
 * - `run/`: the Unix socket the postmaster listens on (no TCP port at all);
 * - `postgres.log`: the postmaster's log.
 */
export interface ClusterLayout {
  dataDir: string;
  pgdata: string;
  passwordFile: string;
  socketDir: string;
  logFile: string;
}

/**
 * The socket's "port" only names the socket file (`.s.PGSQL.5432`): the postmaster listens on no
 * TCP port, so nothing another install holds can collide with it.
 */
export const SOCKET_PORT = 5432;
/** The role the service connects as; the cluster's bootstrap superuser. */
export const ROLE = 'sightline';
/** The database the service's data lives in. */
export const APP_DATABASE = 'sightline';

/** Unix socket paths are limited to about 100 bytes; a deep data directory gets a short socket directory. */
const MAX_SOCKET_PATH = 100;

export function clusterLayout(dataDir: string): ClusterLayout {
  const root = resolve(dataDir);
  let socketDir = join(root, 'run');
  if (join(socketDir, `.s.PGSQL.${SOCKET_PORT}.lock`).length > MAX_SOCKET_PATH) {
    socketDir = join(tmpdir(), `sightline-${createHash('sha256').update(root).digest('hex').slice(0, 16)}`);
  }
  return {
    dataDir: root,
    pgdata: join(root, 'pg'),
    passwordFile: join(root, 'pg-password'),
    socketDir,
    logFile: join(root, 'postgres.log'),
  };
}
