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
  prompts: PromptsTable;
  runs: RunsTable;
  checks: ChecksTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  mcp_idempotency: McpIdempotencyTable;
  cited_urls: CitedUrlsTable;
  run_ads: RunAdsTable;
  run_rollup: RunRollupTable;
  subject_rollup: SubjectRollupTable;
  url_days: UrlDaysTable;
  cell_pages: CellPagesTable;
  change_events: ChangeEventsTable;
  pending_detections: PendingDetectionsTable;
  subject_backfills: SubjectBackfillsTable;
  ingest_lines: IngestLinesTable;
  traffic_daily: TrafficDailyTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
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
  /** Moves when what the workspace lists (its projects) changes: read caches key on it. */
  data_version: Generated<number>;
}

export interface ProjectsTable {
  id: string;
  workspace_id: string;
  name: string;
  domain: string;
  color: string | null;
  aliases: Generated<string[]>;
  created_at: CreatedAt;
  /** Moves with every write of the project's analytics (in the writer's transaction): read caches key on it. */
  data_version: Generated<number>;
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
  /** Refreshed at most once a minute by the requests the key makes. */
  last_used_at: Date | null;
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
  /** For a check's charge: the run it paid for (its project and id). */
  run_project_id: string | null;
  run_id: string | null;
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

export interface PromptsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  text: string;
  topic_id: string | null;
  branded: boolean;
  created_at: CreatedAt;
  /** Where it is checked ('' is not used: an empty list is the provider's default location). */
  locations: Generated<string[]>;
  /** The engines it is checked on (keys); null: every configured engine. */
  engines: string[] | null;
  /** Checks per engine and location per cycle. */
  samples: Generated<number>;
  /** Prompts an import created are paused: an import never starts spending. */
  cadence: Generated<'daily' | 'weekly' | 'paused'>;
  /** Added or taken over by `prompt add` (an imported prompt is not, until then). */
  managed: Generated<boolean>;
  /** The last UTC day a cycle of it was queued. */
  last_cycle_day: Day | null;
  removed_at: Date | null;
  updated_at: Generated<Date>;
}

export interface RunsTable {
  id: string;
  project_id: string;
  engine_id: string;
  prompt_id: string;
  topic_id: string | null;
  /** '' when the run has no location. */
  location: string;
  branded: boolean;
  ran_at: Date;
  day: Day;
  status: 'ok' | 'failed' | 'no_answer';
  answer: string | null;
  /** Provenance of a sampled run (null for imported ones): the check it answers, who answered how. */
  check_id: string | null;
  provider: string | null;
  model: string | null;
  surface: 'api' | 'serp' | null;
  latency_ms: number | null;
  cost_usd: number | null;
  /** Pages the engine retrieved (cited or not), as reported. */
  source_urls: string[] | null;
  fan_out_queries: string[] | null;
  /** Why a run failed or had no answer. */
  reason: string | null;
  /** The scorer of its mentions' sentiment (sampled runs), e.g. `lexicon:vader-sentiment@1.1.3` or `llm:gpt-5-mini`. */
  sentiment_method: string | null;
  /** When the run was recorded: a competitor added later is tracked in the runs recorded after it. */
  created_at: CreatedAt;
  /**
   * The tracked subjects the run mentions, one entry each, with their position (null: not
   * placed), count and sentiment (null: not scored) at the same index.
   */
  mention_subject_ids: Generated<string[]>;
  mention_positions: Generated<(number | null)[]>;
  mention_counts: Generated<number[]>;
  mention_sentiments: Generated<(number | null)[]>;
  /** The pages the run cites (cited_urls ids), each once, in the order first cited. */
  cited_url_ids: Generated<string[]>;
}

export interface McpIdempotencyTable {
  workspace_id: string;
  key: string;
  tool: string;
  result: unknown;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: string;
  email: string;
  /** scrypt, with its parameters and salt (accounts/password.ts). */
  password_hash: string;
  created_at: CreatedAt;
}

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  role: 'owner' | 'viewer';
  created_at: CreatedAt;
}

export interface SessionsTable {
  /** SHA-256 of the cookie's token: the token itself is never stored. */
  token_hash: string;
  user_id: string;
  /** The workspace the session acts in. */
  workspace_id: string;
  csrf_token: string;
  created_at: CreatedAt;
  expires_at: Date;
}

/** One check identity (prompt, engine, location, UTC day, sample): the queue and its record. */
export interface ChecksTable {
  project_id: string;
  id: string;
  workspace_id: string;
  prompt_id: string;
  engine: string;
  location: string;
  day: Day;
  sample: number;
  provider: string;
  state: Generated<'queued' | 'running' | 'done'>;
  outcome: 'ok' | 'no_answer' | 'failed' | 'skipped' | null;
  reason: string | null;
  run_after: Date;
  attempts: Generated<number>;
  claim: string | null;
  claimed_until: Date | null;
  credits: Generated<number>;
  run_id: string | null;
  created_at: CreatedAt;
  finished_at: Date | null;
}

export interface CitedUrlsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  /** The page's identity (runs/normalize-url.ts): no fragment, tracking parameters or trailing slash. */
  url: string;
  /** The first form in which the URL was cited, for display. */
  display_url: string;
  host: string;
  /** Registrable domain (public suffix + one label). */
  domain: string;
  article_type: string;
  /** The verification status, kept per URL: the latest observation (by run time) wins. */
  status: string;
  status_at: Date;
  subject_type: 'brand' | 'competitor' | null;
  subject_id: string | null;
  /** `import`: the status an import gave (left alone); `check`: the checker's own (rechecked). */
  status_source: Generated<'import' | 'check'>;
  /** Among the sources an engine retrieved: a sign the page existed. */
  retrieved: Generated<boolean>;
  ever_verified: Generated<boolean>;
  /** Where the page answered when last verified (after redirects). */
  verified_url: string | null;
  check_failures: Generated<number>;
  first_failure_at: Date | null;
  checked_at: Date | null;
  /** The last check's observation, for a person. */
  check_note: string | null;
  verify_after: Generated<Date>;
  verify_claim: string | null;
  verify_claimed_until: Date | null;
}

export interface RunAdsTable {
  run_id: string;
  project_id: string;
  ordinal: number;
  advertiser: string;
  url: string | null;
  competitor_id: string | null;
}

/**
 * The dimensions every rollup is keyed by. `grouping` is the bit mask of the dimensions summed over
 * (8 engine, 4 topic, 2 location, 1 branded), which then hold a neutral value (nil UUID, '',
 * false); topic_id is also the nil UUID for "no topic" where topics are grouped by. Nine groupings
 * are kept (runs/rollup-cube.ts KEPT_GROUPINGS): the detail, each single filter, none, and the
 * pairs without the topic.
 */
interface RollupDims {
  project_id: string;
  grouping: number;
  day: Day;
  engine_id: string;
  topic_id: string;
  location: string;
  branded: boolean;
}

export interface RunRollupTable extends RollupDims {
  ok_runs: number;
  failed_runs: number;
  mentions: number;
}

export interface SubjectRollupTable extends RollupDims {
  subject_id: string;
  /**
   * Completed runs of the cell in which the subject was not tracked (recorded before it was added,
   * and not searched by its backfill). Its sample size is `run_rollup.ok_runs` minus this.
   */
  untracked_runs: number;
  mention_runs: number;
  mentions: number;
  position_sum: number;
  position_count: number;
  sentiment_sum: number;
  sentiment_count: number;
  /** Citations of URLs belonging to the subject, hallucinated ones excluded (kept current). */
  citations: number;
  /** Completed runs citing at least one such URL. */
  citing_runs: number;
}

/**
 * A URL's citations in a cell (detail, grouping 0, or none, 15) over a month: element d (1-based)
 * holds those of day d. The citations endpoint groups them by the URL's domain and current status
 * when it reads, so a change of status moves nothing here.
 */
export interface UrlDaysTable extends Omit<RollupDims, 'day'> {
  /** The first day of the month. */
  month: Day;
  url_id: string;
  /** Element d (1-based): the URL's citations on days 1 to d of the month, in completed runs of the cell. */
  cumulative: number[];
}

/** The pages cited in a detail cell on a day, as one write (a batch) added them: appended, never updated. */
export interface CellPagesTable {
  project_id: string;
  engine_id: string;
  /** The nil UUID for runs without a topic. */
  topic_id: string;
  location: string;
  branded: boolean;
  day: Day;
  write_id: string;
  url_ids: string[];
  /** Citations of each page of url_ids (same order). */
  counts: number[];
}

export interface ChangeEventsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  key: string;
  day: Day;
  kind: string;
  subject_type: 'brand' | 'competitor';
  subject_id: string;
  engine_id: string | null;
  summary: string;
  /** JSON: pg parses jsonb; written as a JSON string. */
  detail: ColumnType<Record<string, unknown>, string, string>;
  detected_at: ColumnType<Date, Date | undefined, never>;
  /** Set once the event is queued for the workspace's webhooks; null until then. */
  published_at: Date | null;
}

/** A day of a project whose change events must be evaluated again (runs landed on it or before it). */
export interface PendingDetectionsTable {
  project_id: string;
  day: Day;
  queued_at: CreatedAt;
}

/** A competitor's search of the answers recorded before it was added. */
export interface SubjectBackfillsTable {
  project_id: string;
  subject_id: string;
  until: Date;
  /** The last run searched, in id order; null before the first batch. */
  after_run_id: string | null;
  done_at: Date | null;
}

export interface IngestLinesTable {
  project_id: string;
  /** SHA-256 of the raw line, hex. */
  line_hash: string;
  /** The UTC day of the line's own time: the hash is pruned once that day leaves the ingest window. */
  day: Day;
  created_at: CreatedAt;
}

export interface TrafficDailyTable {
  project_id: string;
  day: Day;
  kind: 'crawler' | 'visit';
  platform: string;
  /** The crawler's name; '' for a visit. */
  bot: string;
  /** The page without its query; '(other)' for pages past the per-day cap. */
  path: string;
  hits: number;
}

export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  secret: string;
  created_at: CreatedAt;
}

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  /** The exact JSON body sent (and signed). */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Date;
  /** Claimed by an instance sending it until then; null when not claimed. */
  claimed_until: Date | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: CreatedAt;
}
