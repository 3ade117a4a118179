import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// Accounts for the app (operations.md section 8): people sign in with an email and a password and
// act in the workspaces they are members of, as owners (change settings) or viewers (read).
// - `users` and `sessions` are looked up by email and by a cookie's token before anyone knows the
//   workspace: reference tables, as api_keys is. A session keeps the hash of its token only (the
//   token is the cookie), its CSRF token, and the workspace it is acting in.
// - `memberships` is the workspace's (distributed by it).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`create unique index users_email_idx on users (lower(email))`.execute(db);
  await db.schema
    .createTable('memberships')
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'viewer')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('memberships_pk', ['workspace_id', 'user_id'])
    .execute();
  await sql`create index memberships_user_idx on memberships (user_id)`.execute(db);
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('workspace_id', 'uuid', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index sessions_user_idx on sessions (user_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('memberships').execute();
  await db.schema.dropTable('users').execute();
}
