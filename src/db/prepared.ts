import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type pg from 'pg';

import { createHash } from 'node:crypto';

/**
 * Statements run on every request, prepared once per connection (a named statement): PostgreSQL
 * then plans them once (its generic plan), not on each call. Only texts of a bounded family are
 * named, so the server keeps a few plans per connection, not one per query ever sent: constant
 * statements declared here, and queries that begin with PREPARE_MARK, whose text varies only with
 * the shape of a read (which filters, how many months), never with its values.
 */
const NAMES = new Map<string, string>();

/** A query beginning with this comment is prepared (its text must come from a bounded family). */
export const PREPARE_MARK = '/* prepared */ ';
/** Marked texts named at most: past it, they run unprepared. */
const MAX_MARKED = 500;

function nameOf(text: string): string | undefined {
  let name = NAMES.get(text);
  if (name === undefined && text.startsWith(PREPARE_MARK) && NAMES.size < MAX_MARKED) {
    name = `q_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    NAMES.set(text, name);
  }
  return name;
}

export interface PreparedStatement {
  name: string;
  text: string;
}

/** Declares a statement to prepare: a fixed text with `$1`, `$2`... parameters. */
export function preparedStatement(name: string, text: string): PreparedStatement {
  NAMES.set(text, name);
  return { name, text };
}

/** Runs a prepared statement through Kysely (so it takes part in the caller's transaction, if any). */
export function runPrepared<R>(db: Kysely<any>, statement: PreparedStatement, parameters: readonly unknown[]): Promise<QueryResult<R>> {
  return db.executeQuery<R>(CompiledQuery.raw(statement.text, [...parameters]));
}

/** Makes a pool's connections send the declared statements as named ones. */
export function prepareDeclaredStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
      const name = typeof text === 'string' ? nameOf(text) : undefined;
      return name === undefined ? query(text, values, callback) : query({ name, text, values }, callback);
    };
  });
}
