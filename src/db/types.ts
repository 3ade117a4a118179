import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types. Every table but the `engines` reference table carries `workspace_id` (and, below a
 * project, `project_id`), so the schema can be distributed by workspace (Citus) without reshaping.
 */
export interface DB {
  workspaces: WorkspacesTable;
  projects: ProjectsTable;
  competitors: CompetitorsTable;
  engines: EnginesTable;
  topics: TopicsTable;
  api_keys: ApiKeysTable;
  credit_periods: CreditPeriodsTable;
  credit_ledger: CreditLedgerTable;
  credit_daily: CreditDailyTable;
}

type CreatedAt = ColumnType<Date, Date | undefined, never>;
/** A `date` column: a UTC day as `YYYY-MM-DD`. */
type Day = string;

export interface WorkspacesTable {
  id: string;
  name: string;
  plan: string;
  /** null: the plan decides; true/false: this workspace's own override. */
  api_access: boolean | null;
  credits_enforced: Generated<boolean>;
  daily_ceiling_usd: Generated<number>;
  created_at: CreatedAt;
}

export interface ProjectsTable {
  id: string;
  workspace_id: string;
  name: string;
  domain: string;
  color: string | null;
  aliases: Generated<string[]>;
  created_at: CreatedAt;
}

export interface CompetitorsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  domain: string;
  color: string | null;
  aliases: Generated<string[]>;
  created_at: CreatedAt;
}

export interface EnginesTable {
  id: string;
  key: string;
  label: string;
  position: number;
}

export interface TopicsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  project_id: string | null;
  name: string | null;
  /** The visible start of the secret, for people to tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  secret_hash: string;
  scopes: string[];
  rate_limit: number | null;
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface CreditPeriodsTable {
  workspace_id: string;
  period: Day;
  allowance: number;
  rollover: number;
}

export interface CreditLedgerTable {
  id: string;
  workspace_id: string;
  kind: 'grant' | 'consume';
  credits: number;
  action: string | null;
  engine_key: string | null;
  note: string | null;
  day: Day;
  created_at: CreatedAt;
}

/** Rollup of the ledger per workspace and UTC day, kept in the ledger write's transaction. */
export interface CreditDailyTable {
  workspace_id: string;
  day: Day;
  granted: number;
  consumed: number;
}

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type CompetitorRow = Selectable<CompetitorsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type WorkspaceUpdate = Updateable<WorkspacesTable>;
