import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDatabase } from './helpers.ts';

/**
 * Citus-ready, checked on the schema itself: every table is distributed by `workspace_id` or
 * `project_id` (its own `id` for workspaces and projects), or is a reference table; every primary
 * key and unique index carries the distribution column; a foreign key between distributed tables
 * carries it on both sides (docs/scaling.md has the distribution DDL).
 */
export const REFERENCE_TABLES = new Set(['engines', 'api_keys', 'users', 'sessions']);
export const OWN_ID: Record<string, 'workspace_id' | 'project_id'> = { workspaces: 'workspace_id', projects: 'project_id' };

describe('the schema is distributable', () => {
  test('every key carries its table\'s distribution column; foreign keys stay inside a distribution', async () => {
    const database = await openTestDatabase();
    try {
      const db = database.db;
      const tables = (await sql<{ table: string; columns: string[] }>`
        select c.relname as table, array_agg(a.attname::text order by a.attnum) as columns
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        where n.nspname = current_schema() and c.relkind in ('r', 'p') and c.relname not like 'kysely_%'
        group by c.relname order by c.relname`.execute(db)).rows;
      assert.ok(tables.length > 15, 'the tables are read');
      /** The column a table is distributed by (as the name its rows carry), or null for a reference table. */
      const distribution = new Map<string, { column: string; kind: 'workspace_id' | 'project_id' } | null>();
      for (const t of tables) {
        if (REFERENCE_TABLES.has(t.table)) distribution.set(t.table, null);
        else if (OWN_ID[t.table]) distribution.set(t.table, { column: 'id', kind: OWN_ID[t.table]! });
        else if (t.columns.includes('project_id')) distribution.set(t.table, { column: 'project_id', kind: 'project_id' });
        else if (t.columns.includes('workspace_id')) distribution.set(t.table, { column: 'workspace_id', kind: 'workspace_id' });
        else assert.fail(`${t.table} has neither project_id nor workspace_id and is not a reference table`);
      }

      const keys = (await sql<{ table: string; index: string; columns: string[]; primary: boolean }>`
        select t.relname as table, i.relname as index, ix.indisprimary as primary,
          array(select a.attname::text from unnest(ix.indkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.num order by k.ord) as columns
        from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_class t on t.oid = ix.indrelid
        join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = current_schema() and (ix.indisunique or ix.indisprimary) and t.relname not like 'kysely_%'`.execute(db)).rows;
      const missing = keys.filter((k) => {
        const d = distribution.get(k.table);
        return d !== null && d !== undefined && !k.columns.includes(d.column);
      });
      assert.deepEqual(missing.map((k) => `${k.table}.${k.index} (${k.columns.join(', ')})`), []);
      assert.ok(tables.every((t) => REFERENCE_TABLES.has(t.table) || keys.some((k) => k.table === t.table && k.primary)), 'every distributed table has a primary key');

      const foreign = (await sql<{ name: string; table: string; columns: string[]; target: string; targetColumns: string[] }>`
        select con.conname as name, t.relname as table, f.relname as target,
          array(select a.attname::text from unnest(con.conkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.num order by k.ord) as columns,
          array(select a.attname::text from unnest(con.confkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = f.oid and a.attnum = k.num order by k.ord) as "targetColumns"
        from pg_constraint con join pg_class t on t.oid = con.conrelid join pg_class f on f.oid = con.confrelid
        join pg_namespace n on n.oid = t.relnamespace
        where con.contype = 'f' and n.nspname = current_schema()`.execute(db)).rows;
      const wrong = foreign.filter((fk) => {
        const from = distribution.get(fk.table);
        const to = distribution.get(fk.target);
        if (to === null) return false; // to a reference table: allowed
        if (from === null) return true; // a reference table cannot point at a distributed one
        if (!from || !to || from.kind !== to.kind) return true;
        const i = fk.columns.indexOf(from.column);
        return i < 0 || fk.targetColumns[i] !== to.column;
      });
      assert.deepEqual(wrong.map((fk) => `${fk.name}: ${fk.table}(${fk.columns}) -> ${fk.target}(${fk.targetColumns})`), []);
    } finally {
      await database.close();
    }
  });
});
