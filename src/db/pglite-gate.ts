import { createServer, type Server, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import {
  PGliteDialect,
  type DatabaseConnection,
  type Driver,
  type PGliteDialectConfig,
  type TransactionSettings,
  type CompiledQuery,
  type QueryCompiler,
} from 'kysely';

/**
 * PGlite is one PostgreSQL backend: one session, one open transaction at a time. The server uses
 * it in process (Kysely) and lends it to the CLI over a Unix socket (pg wire protocol). Without
 * care the two interleave: a query of the server could run inside a transaction the CLI opened
 * (and vanish with its rollback), or one client's Bind could bind another's Parse.
 *
 * The gate makes the backend a resource with one owner at a time:
 * - the in-process Kysely connection holds it for one query, or for a whole transaction;
 * - a socket client takes it with its first message and keeps it until the backend reports
 *   ReadyForQuery with status idle (`I`): the end of a simple query, or of an extended-protocol
 *   sequence at Sync, or of a transaction at COMMIT/ROLLBACK. A client that disconnects while
 *   holding it has its transaction rolled back and the gate released.
 */
export class Gate {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves once the caller owns the gate; call the returned function to hand it on. */
  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ready = this.#tail.then(() => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release();
      };
    });
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

/** Kysely's PGlite dialect with every connection hold (a query or a transaction) behind the gate. */
export class GatedPGliteDialect extends PGliteDialect {
  readonly #gate: Gate;

  constructor(config: PGliteDialectConfig, gate: Gate) {
    super(config);
    this.#gate = gate;
  }

  override createDriver(): Driver {
    return new GatedDriver(super.createDriver(), this.#gate);
  }
}

class GatedDriver implements Driver {
  readonly #inner: Driver;
  readonly #gate: Gate;
  #release: (() => void) | undefined;

  constructor(inner: Driver, gate: Gate) {
    this.#inner = inner;
    this.#gate = gate;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  // Kysely serialises acquire/release for a dialect without multiple connections, so one
  // release slot is enough.
  async acquireConnection(): Promise<DatabaseConnection> {
    this.#release = await this.#gate.acquire();
    try {
      return await this.#inner.acquireConnection();
    } catch (error) {
      this.#releaseGate();
      throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#inner.releaseConnection(connection);
    } finally {
      this.#releaseGate();
    }
  }

  #releaseGate(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.#inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.#inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.#inner.releaseSavepoint?.(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

export type { CompiledQuery };

const READY_FOR_QUERY = 0x5a; // 'Z'
const TERMINATE = 0x58; // 'X', from a client
const STATUS_IDLE = 0x49; // 'I'

/**
 * Walks the backend's output, message by message across chunks, and remembers the status byte of
 * the last ReadyForQuery. Output is a sequence of (type byte, int32 length incl. itself, body).
 */
export class ReadyForQueryTracker {
  #header = new Uint8Array(5);
  #headerFill = 0;
  #remaining = 0;
  #type = 0;
  /** Status of the last ReadyForQuery seen in the current response, or undefined. */
  status: number | undefined;

  reset(): void {
    this.status = undefined;
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#remaining > 0) {
        const take = Math.min(this.#remaining, chunk.length - i);
        if (this.#type === READY_FOR_QUERY && take > 0) this.status = chunk[i + take - 1];
        this.#remaining -= take;
        i += take;
        continue;
      }
      this.#header[this.#headerFill++] = chunk[i++]!;
      if (this.#headerFill === 5) {
        this.#type = this.#header[0]!;
        const length =
          ((this.#header[1]! << 24) | (this.#header[2]! << 16) | (this.#header[3]! << 8) | this.#header[4]!) >>> 0;
        this.#remaining = length - 4;
        this.#headerFill = 0;
      }
    }
  }

  get idle(): boolean {
    return this.status === STATUS_IDLE;
  }
}

/**
 * The queue PGLiteSocketHandler calls for every protocol message of its client. It runs each
 * message only while that client owns the gate (see Gate).
 */
class GatedQueue {
  readonly #db: PGlite;
  readonly #gate: Gate;
  readonly #owners = new Map<number, () => void>();
  readonly #trackers = new Map<number, ReadyForQueryTracker>();
  /** Handlers waiting for the gate, and those of them whose socket closed meanwhile. */
  readonly #waiting = new Set<number>();
  readonly #closed = new Set<number>();

  constructor(db: PGlite, gate: Gate) {
    this.#db = db;
    this.#gate = gate;
  }

  async enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    // Terminate: the client is leaving; its socket's close does the clean-up. The embedded backend
    // is shared, so it is never asked to end its one session.
    if (message[0] === TERMINATE) return 0;
    if (!this.#owners.has(handlerId)) {
      this.#waiting.add(handlerId);
      const release = await this.#gate.acquire();
      this.#waiting.delete(handlerId);
      if (this.#closed.delete(handlerId)) {
        // The client went away while waiting: nothing to run, and nobody left to release later.
        release();
        return 0;
      }
      this.#owners.set(handlerId, release);
    }
    let tracker = this.#trackers.get(handlerId);
    if (!tracker) {
      tracker = new ReadyForQueryTracker();
      this.#trackers.set(handlerId, tracker);
    }
    tracker.reset();
    let bytes = 0;
    try {
      await this.#db.runExclusive(() =>
        this.#db.execProtocolRawStream(message, {
          onRawData: (data) => {
            bytes += data.length;
            tracker.push(data);
            onData(data);
          },
        }),
      );
    } catch (error) {
      if (this.#db.closed || !this.#db.isInTransaction()) this.#release(handlerId);
      throw error;
    }
    if (tracker.idle) this.#release(handlerId);
    return bytes;
  }

  clearQueueForHandler(_handlerId: number): void {
    // Messages are run one at a time as they arrive; nothing waits in a queue of ours.
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.#waiting.has(handlerId)) this.#closed.add(handlerId);
    this.#trackers.delete(handlerId);
    if (!this.#owners.has(handlerId)) return;
    try {
      if (!this.#db.closed && this.#db.isInTransaction()) await this.#db.exec('ROLLBACK');
    } finally {
      this.#release(handlerId);
    }
  }

  #release(handlerId: number): void {
    const release = this.#owners.get(handlerId);
    this.#owners.delete(handlerId);
    release?.();
  }
}

/** Serves the embedded database on a Unix socket for `pg` clients (the CLI). */
export async function serveOverSocket(db: PGlite, gate: Gate, socketPath: string): Promise<Server> {
  const queue = new GatedQueue(db, gate);
  const server = createServer((socket: Socket) => {
    const handler = new PGLiteSocketHandler({
      // The handler only calls enqueue, clearQueueForHandler and clearTransactionIfNeeded.
      queryQueue: queue as unknown as ConstructorParameters<typeof PGLiteSocketHandler>[0]['queryQueue'],
      closeOnDetach: true,
    });
    handler.attach(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
