import type { Kysely } from 'kysely';
import { Type, type TSchema } from 'typebox';
import type { DB, ProjectRow } from '../db/types.ts';
import type { Principal } from '../auth/find-principal.ts';
import { echo, FilterQuery, resolveFilters, resolveRange } from '../analytics/filters.ts';
import { getDailySeries } from '../analytics/get-daily-series.ts';
import { getRanking } from '../analytics/get-ranking.ts';
import { getSourceDomains } from '../analytics/get-source-domains.ts';
import { listSubjects } from '../analytics/list-subjects.ts';
import { listChanges } from '../changes/list-changes.ts';
import { AppError, BadRequestError, NotFoundError } from '../http/errors.ts';
import { IsoDate, Uuid } from '../http/schemas.ts';
import { addCompetitor } from '../projects/add-competitor.ts';
import { listProjects } from '../projects/list-projects.ts';
import { addPrompt } from '../prompts/add-prompt.ts';
import { listPrompts } from '../prompts/list-prompts.ts';
import { checkPromptInput } from '../prompts/prompt-settings.ts';
import { removePrompt } from '../prompts/remove-prompt.ts';
import { updatePrompt } from '../prompts/update-prompt.ts';
import { getRun } from '../runs/get-run.ts';
import { listRuns } from '../runs/list-runs.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { planCycle } from '../sampling/plan-cycle.ts';
import { cyclePrompts, sampleNow } from '../sampling/sample-now.ts';
import type { SamplerDeps } from '../sampling/sampler.ts';
import { getTraffic } from '../traffic/get-traffic.ts';
import { utcDay } from '../usage/calendar.ts';
import { getUsage } from '../usage/get-usage.ts';
import { PER_ENGINE_CHECK } from '../usage/pricing.ts';
import type { VerifierDeps } from '../verification/verifier.ts';
import { verifyNow } from '../verification/verify-now.ts';

/** What the tools read and act with: the service's own parts, as the HTTP routes have them. */
export interface ToolDeps {
  db: Kysely<DB>;
  now: () => Date;
  engineIds: ReadonlySet<string>;
  configuredEngines: readonly EngineKey[];
  /** For sample_now without dryRun (the queue a server works); absent: it only plans. */
  sampler?: Omit<SamplerDeps, 'onError'> | undefined;
  /** For verify_now; absent: it reports nothing checked. */
  verifier?: Omit<VerifierDeps, 'onError'> | undefined;
}

export interface ToolContext {
  deps: ToolDeps;
  principal: Principal;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The arguments, named as the HTTP query parameters are. */
  input: TSchema;
  scope: 'mcp' | 'mcp:write';
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** The HTTP endpoint's `data` object. */
  run(context: ToolContext, args: Record<string, any>): Promise<unknown>;
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const ProjectArg = { projectId: { ...Uuid, description: 'the project (brand): see list_projects' } };
const Range = { from: Type.Optional({ ...IsoDate, description: 'range start, inclusive; default to minus 27 days' }), to: Type.Optional({ ...IsoDate, description: 'range end, inclusive; default today (UTC)' }) };
const IdempotencyKey = { idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the same key again returns the first call\'s result and changes nothing' })) };
const PromptSettingsArgs = {
  topic: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  branded: Type.Optional(Type.Boolean()),
  locations: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
  engines: Type.Optional(Type.Union([Type.Array(Type.String(), { maxItems: 7 }), Type.Null()], { description: 'engine keys; null or absent: every configured engine' })),
  samples: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  cadence: Type.Optional(Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('paused')])),
};
/** The HTTP filters as arguments: `branded` a JSON boolean, as the filters echo it (the query string's "true" or "false" taken too). */
const FilterArgs = {
  ...FilterQuery.properties,
  branded: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')], { description: 'branded or unbranded prompts only' })),
};
const RATES =
  ' Every rate carries its sample size (`sampleSize`: completed runs) and a Wilson 95% interval (`ciLow`..`ciHigh`); a rate over fewer than 5 runs is withheld (`visibility` null with `rateWithheld` saying why), never 0. Failed and unanswered runs are in no sample.';

/** The project a key may see, or 404 (another workspace's, or another project for a project-scoped key, look unknown). */
async function projectFor(context: ToolContext, projectId: string): Promise<ProjectRow> {
  const { principal, deps } = context;
  const id = projectId.toLowerCase();
  const row = await deps.db.selectFrom('projects').selectAll().where('id', '=', id).where('workspace_id', '=', principal.workspaceId).executeTakeFirst();
  if (!row || (principal.projectId !== null && principal.projectId !== id)) throw new NotFoundError(`no project ${projectId}`);
  return { ...row, data_version: Number(row.data_version) };
}

/** The project of a prompt the key may see, or 404. */
async function promptFor(context: ToolContext, promptId: string): Promise<string> {
  const row = await context.deps.db.selectFrom('prompts').select(['id', 'project_id']).where('id', '=', promptId.toLowerCase()).where('workspace_id', '=', context.principal.workspaceId).executeTakeFirst();
  if (!row || (context.principal.projectId !== null && context.principal.projectId !== row.project_id)) throw new NotFoundError(`no prompt ${promptId}`);
  return row.id;
}

/** The project and the analytics filters a tool's arguments name, resolved and checked as the HTTP routes do. */
async function projectFilters(context: ToolContext, args: Record<string, any>) {
  const project = await projectFor(context, args.projectId);
  const branded = typeof args.branded === 'boolean' ? String(args.branded) : args.branded;
  const query = { from: args.from, to: args.to, engineId: args.engineId, topicId: args.topicId, location: args.location, branded };
  return { project, filters: await resolveFilters(context.deps.db, project.id, query, context.deps.now(), context.deps.engineIds) };
}

export const TOOLS: Tool[] = [
  {
    name: 'list_projects',
    title: 'List projects',
    description: "The projects (brands) the key can see, oldest first. Start here: every other tool takes a projectId.",
    input: Type.Object({}),
    scope: 'mcp',
    annotations: READ,
    run: async ({ deps, principal }) => ({ projects: await listProjects(deps.db, principal) }),
  },
  {
    name: 'get_visibility_timeseries',
    title: 'Visibility over time',
    description: `Daily visibility of the brand (or a competitor: subjectType and subjectId) over a range, one point per day, unsampled days included with sampleSize 0.${RATES}`,
    input: Type.Object({ ...ProjectArg, ...FilterArgs, subjectType: Type.Optional(Type.Union([Type.Literal('brand'), Type.Literal('competitor')])), subjectId: Type.Optional(Uuid) }),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => {
      const project = await projectFor(context, args.projectId);
      if (args.subjectType === 'competitor' && args.subjectId === undefined) {
        throw new BadRequestError('subjectType=competitor needs subjectId', { subjectId: 'is required when subjectType is competitor' });
      }
      const subjects = await listSubjects(context.deps.db, project);
      const wanted = (args.subjectId as string | undefined)?.toLowerCase() ?? project.id;
      const subject = subjects.find((s) => s.subjectId === wanted && (args.subjectType === undefined || s.subjectType === args.subjectType));
      if (!subject) throw new NotFoundError(`no ${args.subjectType ?? 'subject'} ${wanted} in this project`);
      const { filters } = await projectFilters(context, args);
      return { subject: { subjectType: subject.subjectType, subjectId: subject.subjectId }, filters: echo(filters), series: await getDailySeries(context.deps.db, filters, subject) };
    },
  },
  {
    name: 'get_ranking',
    title: 'Brand against competitors',
    description: `The brand and every tracked competitor over the range: visibility, interval, share of voice, average position, sentiment.${RATES}`,
    input: Type.Object({ ...ProjectArg, ...FilterArgs }),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => {
      const { project, filters } = await projectFilters(context, args);
      return { filters: echo(filters), rows: await getRanking(context.deps.db, filters, await listSubjects(context.deps.db, project)) };
    },
  },
  {
    name: 'get_citations',
    title: 'Cited domains',
    description: 'Domains the answers cite over the range, most cited first, with counts per verification status (hallucinated citations counted apart from citedCount) and how each relates to the brand.',
    input: Type.Object({ ...ProjectArg, ...FilterArgs }),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => {
      const { project, filters } = await projectFilters(context, args);
      const subjects = await listSubjects(context.deps.db, project);
      return { filters: echo(filters), domains: await getSourceDomains(context.deps.db, filters, project.domain, subjects.filter((s) => s.subjectType === 'competitor').map((s) => s.domain)) };
    },
  },
  {
    name: 'get_changes',
    title: 'Significant changes',
    description: 'Change events over the range: only statistically real moves (both days measured, intervals apart, at least 10 points), rank moves, citations gained or lost, a rival advertising on a branded prompt.',
    input: Type.Object({ ...ProjectArg, ...Range }),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => {
      const project = await projectFor(context, args.projectId);
      const range = resolveRange(args, context.deps.now());
      return { filters: range, events: await listChanges(context.deps.db, project.id, range.from, range.to) };
    },
  },
  {
    name: 'get_usage',
    title: 'Credits and spend',
    description: "The workspace's credit balance this month, the price table, and today's spend against the daily ceiling.",
    input: Type.Object({}),
    scope: 'mcp',
    annotations: READ,
    run: async ({ deps, principal }) => getUsage(deps.db, principal.workspaceId, deps.now()),
  },
  {
    name: 'get_traffic',
    title: 'AI crawlers and AI-referred visits',
    description: 'Per day over the range: AI crawler hits by platform, visits referred by AI answers by platform, and the top pages.',
    input: Type.Object({ ...ProjectArg, ...Range }),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => {
      const project = await projectFor(context, args.projectId);
      const range = resolveRange(args, context.deps.now());
      return { filters: range, days: await getTraffic(context.deps.db, project.id, range.from, range.to) };
    },
  },
  {
    name: 'list_prompts',
    title: 'Prompts',
    description: 'The questions asked of the engines: text, topic, branded, locations, engines, samples per cycle, cadence.',
    input: Type.Object(ProjectArg),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => ({ prompts: await listPrompts(context.deps.db, (await projectFor(context, args.projectId)).id, context.deps.configuredEngines) }),
  },
  {
    name: 'list_runs',
    title: 'Runs',
    description: 'The answers behind every number, newest first: each run\'s engine, prompt, status (ok, failed, no_answer), the subjects it mentions. Page with cursor (nextCursor).',
    input: Type.Object({
      ...ProjectArg,
      ...FilterArgs,
      promptId: Type.Optional(Uuid),
      status: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('no_answer')])),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      cursor: Type.Optional(Type.String({ maxLength: 300 })),
    }),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => {
      const { project, filters } = await projectFilters(context, args);
      const page = await listRuns(context.deps.db, filters, { promptId: args.promptId?.toLowerCase(), status: args.status, limit: args.limit ?? 50, cursor: args.cursor }, await listSubjects(context.deps.db, project));
      return { filters: echo(filters), ...page };
    },
  },
  {
    name: 'get_run',
    title: 'One run',
    description: 'One run with its full answer text, the pages it cites with their verification status, its ads, and how it was captured (provider, model, surface, sources retrieved, searches fanned out to).',
    input: Type.Object({ ...ProjectArg, runId: Uuid }),
    scope: 'mcp',
    annotations: READ,
    run: async (context, args) => {
      const project = await projectFor(context, args.projectId);
      const run = await getRun(context.deps.db, project.id, String(args.runId).toLowerCase(), await listSubjects(context.deps.db, project));
      if (!run) throw new NotFoundError(`no run ${args.runId} in this project`);
      return run;
    },
  },
  {
    name: 'add_prompt',
    title: 'Add a prompt',
    description: 'Adds a question to check on the engines (default: every configured engine, no location, 1 sample, daily). Checking it spends credits each cycle: see sample_now (dry run) and get_usage.',
    input: Type.Object({ ...ProjectArg, text: Type.String({ minLength: 1, maxLength: 1000 }), ...PromptSettingsArgs, ...IdempotencyKey }),
    scope: 'mcp:write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (context, args) => {
      const project = await projectFor(context, args.projectId);
      const settings = checkPromptInput(args);
      return addPrompt(context.deps.db, project.id, { ...settings, text: settings.text! });
    },
  },
  {
    name: 'update_prompt',
    title: 'Change a prompt',
    description: "Changes a prompt's settings (the others stay); its runs stay its own.",
    input: Type.Object({ promptId: Uuid, text: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })), ...PromptSettingsArgs, ...IdempotencyKey }),
    scope: 'mcp:write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (context, args) => updatePrompt(context.deps.db, await promptFor(context, args.promptId), checkPromptInput(args)),
  },
  {
    name: 'remove_prompt',
    title: 'Remove a prompt',
    description: 'Stops checking a prompt; its runs stay and keep counting.',
    input: Type.Object({ promptId: Uuid, ...IdempotencyKey }),
    scope: 'mcp:write',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (context, args) => removePrompt(context.deps.db, await promptFor(context, args.promptId), context.deps.now()),
  },
  {
    name: 'add_competitor',
    title: 'Track a competitor',
    description: 'Adds a competitor by name and domain (aliases optional); its mentions are found in stored answers too.',
    input: Type.Object({ ...ProjectArg, name: Type.String(), domain: Type.String(), color: Type.Optional(Type.String()), aliases: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })), ...IdempotencyKey }),
    scope: 'mcp:write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (context, args) => addCompetitor(context.deps.db, (await projectFor(context, args.projectId)).id, { name: args.name, domain: args.domain, color: args.color, aliases: args.aliases }),
  },
  {
    name: 'sample_now',
    title: 'Ask the engines now',
    description:
      'A cycle of the project\'s prompts (or one) now. A dry run unless dryRun is false: it returns the checks it would make and the credits they would cost, and spends nothing. With dryRun false the checks are queued and the service\'s workers ask the engines; each check is charged once if answered.',
    input: Type.Object({ ...ProjectArg, promptId: Type.Optional(Uuid), dryRun: Type.Optional(Type.Boolean({ default: true })), ...IdempotencyKey }),
    scope: 'mcp:write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async (context, args) => {
      const project = await projectFor(context, args.projectId);
      const promptId = args.promptId === undefined ? undefined : await promptFor(context, args.promptId);
      if (args.dryRun !== false) return dryRun(context, project.id, promptId);
      if (!context.deps.sampler) throw new AppError('bad_request', 'this instance has no sampling configuration: only a dry run is possible');
      return { dryRun: false, ...(await sampleNow({ ...context.deps.sampler, onError: () => undefined }, project.id, promptId, false)) };
    },
  },
  {
    name: 'verify_now',
    title: 'Check cited pages now',
    description: 'Checks the cited pages of the project that are due (new ones, and ones whose recheck is due) and reports the statuses they were left in.',
    input: Type.Object({ ...ProjectArg, ...IdempotencyKey }),
    scope: 'mcp:write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async (context, args) => {
      const project = await projectFor(context, args.projectId);
      if (!context.deps.verifier) return { checked: 0, verified: 0, stale: 0, broken: 0, hallucinated: 0, unchecked: 0 };
      return verifyNow({ ...context.deps.verifier, onError: () => undefined }, project.id, true);
    },
  },
];

/** What a cycle would do now, spending nothing: its checks and their credits. */
async function dryRun(context: ToolContext, projectId: string, promptId: string | undefined): Promise<unknown> {
  const { db, configuredEngines, now } = context.deps;
  const prompts = await cyclePrompts(db, projectId, promptId);
  const plan = planCycle(prompts, configuredEngines, utcDay(now()), now(), false);
  const credits = plan.checks.reduce((sum, c) => sum + PER_ENGINE_CHECK[c.engine], 0);
  return { dryRun: true, checks: plan.checks.length, skipped: plan.unconfigured, creditsEstimated: Math.round(credits * 10_000) / 10_000 };
}
