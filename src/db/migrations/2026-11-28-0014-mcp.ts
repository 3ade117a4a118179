import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// The MCP tool server (operations.md section 9): a write called with an idempotency key keeps its
// result per workspace and key, so calling it again answers the same and changes nothing.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_idempotency')
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('result', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('mcp_idempotency_pk', ['workspace_id', 'key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_idempotency').execute();
}
