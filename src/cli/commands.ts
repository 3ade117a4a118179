import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createOutbound } from '../outbound/outbound.ts';
import { configuredUserAgent } from '../outbound/user-agent.ts';
import { createApiKey } from '../auth/create-api-key.ts';
import { revokeApiKey } from '../auth/revoke-api-key.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { seedDemo } from '../demo/seed-demo.ts';
import { listEngines } from '../engines/list-engines.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { addCompetitor } from '../projects/add-competitor.ts';
import { createProject } from '../projects/create-project.ts';
import { importRuns } from '../runs/import-runs.ts';
import { listTopics } from '../topics/list-topics.ts';
import { grantCredits } from '../usage/grant-credits.ts';
import { addWebhook } from '../webhooks/add-webhook.ts';
import { listWebhooks } from '../webhooks/list-webhooks.ts';
import { listApiKeys } from '../auth/list-api-keys.ts';
import { listCompetitorDetails, listProjectDetails } from '../projects/list-project-details.ts';
import { listWorkspaces } from '../workspaces/list-workspaces.ts';
import { createWorkspace } from '../workspaces/create-workspace.ts';
import { updateWorkspace, workspaceControls } from '../workspaces/update-workspace.ts';
import { booleanFlag, numberFlag, uuidFlag } from './flags.ts';
import { idResult, list, str, table, type Command, type CommandContext, type CommandResult, type OptionSpec } from './command.ts';
import { SAMPLING_COMMANDS } from './sampling-commands.ts';
import { createUser } from '../accounts/create-user.ts';

export type { Command, CommandContext, CommandResult };

const subjectOptions: Record<string, OptionSpec> = {
  name: { type: 'string' },
  domain: { type: 'string' },
  color: { type: 'string' },
  alias: { type: 'string', multiple: true },
};

export const COMMANDS: Record<string, Command> = {
  serve: { name: 'serve', options: {}, run: 'serve' },

  migrate: {
    name: 'migrate',
    options: {},
    // The CLI migrates before every command; this reports what was (already) applied.
    run: async ({ db }) => {
      const applied = await migrateToLatest(db);
      return { json: { applied }, text: applied.length ? `applied ${applied.join(', ')}` : 'schema is up to date' };
    },
  },

  'workspace create': {
    name: 'workspace create',
    options: { name: { type: 'string' }, plan: { type: 'string' } },
    required: ['name'],
    run: async ({ db, values }) =>
      idResult((await createWorkspace(db, { name: str(values, 'name')!, plan: str(values, 'plan') })).id, 'created workspace'),
  },

  'workspace list': {
    name: 'workspace list',
    options: {},
    run: async ({ db }) => {
      const workspaces = await listWorkspaces(db);
      return { json: { workspaces }, text: table(workspaces.map((w) => [w.id, w.plan, w.name])) || '(no workspaces)' };
    },
  },

  'workspace update': {
    name: 'workspace update',
    options: {
      plan: { type: 'string' },
      'api-access': { type: 'string' },
      'credits-enforced': { type: 'string' },
      'daily-ceiling-usd': { type: 'string' },
    },
    positionals: ['id'],
    run: async ({ db, values, positionals }) => {
      const { id } = await updateWorkspace(db, uuidFlag('id', positionals[0]!), {
        plan: str(values, 'plan'),
        apiAccess: booleanFlag('api-access', str(values, 'api-access')),
        creditsEnforced: booleanFlag('credits-enforced', str(values, 'credits-enforced')),
        dailyCeilingUsd: numberFlag('daily-ceiling-usd', str(values, 'daily-ceiling-usd')),
      });
      return { json: await workspaceControls(db, id), text: `updated workspace ${id}` };
    },
  },

  'credits grant': {
    name: 'credits grant',
    options: { workspace: { type: 'string' }, credits: { type: 'string' }, note: { type: 'string' } },
    required: ['workspace', 'credits'],
    run: async ({ db, values, now }) => {
      const result = await grantCredits(
        db,
        uuidFlag('workspace', str(values, 'workspace')!),
        numberFlag('credits', str(values, 'credits'))!,
        str(values, 'note'),
        now,
      );
      return { json: result, text: `granted ${result.credits} credits to workspace ${result.workspaceId}` };
    },
  },

  'project create': {
    name: 'project create',
    options: { workspace: { type: 'string' }, ...subjectOptions },
    required: ['workspace', 'name', 'domain'],
    run: async ({ db, values }) => {
      const { id } = await createProject(db, uuidFlag('workspace', str(values, 'workspace')!), {
        name: str(values, 'name')!,
        domain: str(values, 'domain')!,
        color: str(values, 'color'),
        aliases: list(values, 'alias'),
      });
      return idResult(id, 'created project');
    },
  },

  'project list': {
    name: 'project list',
    options: { workspace: { type: 'string' } },
    run: async ({ db, values }) => {
      const projects = await listProjectDetails(db, uuidFlag('workspace', str(values, 'workspace')));
      return { json: { projects }, text: table(projects.map((p) => [p.id, p.domain, p.name, `workspace ${p.workspaceId}`])) || '(no projects)' };
    },
  },

  'competitor list': {
    name: 'competitor list',
    options: { project: { type: 'string' } },
    required: ['project'],
    run: async ({ db, values }) => {
      const competitors = await listCompetitorDetails(db, uuidFlag('project', str(values, 'project')!));
      return { json: { competitors }, text: table(competitors.map((c) => [c.id, c.domain, c.name])) || '(no competitors)' };
    },
  },

  'competitor add': {
    name: 'competitor add',
    options: { project: { type: 'string' }, ...subjectOptions },
    required: ['project', 'name', 'domain'],
    run: async ({ db, values }) => {
      const { id } = await addCompetitor(db, uuidFlag('project', str(values, 'project')!), {
        name: str(values, 'name')!,
        domain: str(values, 'domain')!,
        color: str(values, 'color'),
        aliases: list(values, 'alias'),
      });
      return idResult(id, 'added competitor');
    },
  },

  'key create': {
    name: 'key create',
    options: {
      workspace: { type: 'string' },
      project: { type: 'string' },
      scopes: { type: 'string' },
      'rate-limit': { type: 'string' },
      name: { type: 'string' },
    },
    required: ['workspace', 'scopes'],
    run: async ({ db, values }) => {
      const created = await createApiKey(db, {
        workspaceId: uuidFlag('workspace', str(values, 'workspace')!),
        projectId: uuidFlag('project', str(values, 'project')),
        scopes: str(values, 'scopes')!.split(','),
        rateLimit: numberFlag('rate-limit', str(values, 'rate-limit')),
        name: str(values, 'name'),
      });
      return {
        json: created,
        text: `created key ${created.id}\n${created.key}\n(the secret is shown this once; only its hash is stored)`,
      };
    },
  },

  'key list': {
    name: 'key list',
    options: { workspace: { type: 'string' } },
    required: ['workspace'],
    run: async ({ db, values }) => {
      const keys = await listApiKeys(db, uuidFlag('workspace', str(values, 'workspace')!));
      return {
        json: { keys },
        text:
          table(
            keys.map((k) => [
              k.id,
              `${k.prefix}...`,
              k.scopes.join(','),
              k.projectId ? `project ${k.projectId}` : 'workspace',
              k.revokedAt ? `revoked ${k.revokedAt}` : `last used ${k.lastUsedAt ?? 'never'}`,
            ]),
          ) || '(no keys)',
      };
    },
  },

  'key revoke': {
    name: 'key revoke',
    options: {},
    positionals: ['id'],
    run: async ({ db, positionals, now }) => {
      const result = await revokeApiKey(db, uuidFlag('id', positionals[0]!), now);
      return { json: result, text: `revoked key ${result.id}` };
    },
  },

  'engines list': {
    name: 'engines list',
    options: {},
    run: async ({ db }) => {
      const engines = await listEngines(db);
      return { json: { engines }, text: engines.map((e) => `${e.id}  ${e.key.padEnd(20)} ${e.label}`).join('\n') };
    },
  },

  'topics list': {
    name: 'topics list',
    options: { project: { type: 'string' } },
    required: ['project'],
    run: async ({ db, values }) => {
      const projectId = uuidFlag('project', str(values, 'project')!);
      const project = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
      if (!project) throw new NotFoundError(`no project ${projectId}`);
      const topics = await listTopics(db, projectId);
      return { json: { topics }, text: topics.map((t) => `${t.id}  ${t.name}`).join('\n') || '(no topics)' };
    },
  },

  'runs import': {
    name: 'runs import',
    options: { project: { type: 'string' } },
    required: ['project'],
    positionals: ['file'],
    run: async ({ db, config, values, positionals }) => {
      const file = positionals[0]!;
      if (file !== '-' && !existsSync(file)) throw new BadRequestError(`no file ${file}`, { file: 'does not exist' });
      const input = file === '-' ? process.stdin : createReadStream(file);
      const lines = createInterface({ input, crlfDelay: Infinity });
      let result;
      try {
        result = await importRuns(db, uuidFlag('project', str(values, 'project')!), lines, { batchSize: config.importBatch });
      } finally {
        lines.close();
        input.destroy();
      }
      const errors = result.errors.map((e) => `  line ${e.line}: ${e.message}`).join('\n');
      return {
        json: result,
        text: `imported ${result.imported}, skipped ${result.skipped} already imported, rejected ${result.rejected}${errors ? `\n${errors}` : ''}`,
      };
    },
  },

  'webhook add': {
    name: 'webhook add',
    options: { workspace: { type: 'string' }, url: { type: 'string' } },
    required: ['workspace', 'url'],
    run: async ({ db, config, values }) => {
      const outbound = createOutbound({ userAgent: configuredUserAgent(config), resolve: config.resolve });
      const hook = await addWebhook(db, outbound, uuidFlag('workspace', str(values, 'workspace')!), str(values, 'url')!).finally(() => outbound.close());
      return {
        json: hook,
        text: `added webhook ${hook.id} -> ${hook.url}\nsigning secret: ${hook.secret}\n(shown this once; see docs/webhooks.md to verify signatures)`,
      };
    },
  },

  'webhook list': {
    name: 'webhook list',
    options: { workspace: { type: 'string' } },
    run: async ({ db, values }) => {
      const webhooks = await listWebhooks(db, uuidFlag('workspace', str(values, 'workspace')));
      return {
        json: { webhooks },
        text: table(webhooks.map((w) => [w.id, w.url, `${w.deliveries.pending} pending, ${w.deliveries.delivered} delivered, ${w.deliveries.failed} failed`])) || '(no webhooks)',
      };
    },
  },

  demo: {
    name: 'demo',
    options: { workspace: { type: 'string' } },
    run: async ({ db, values }) => {
      const demo = await seedDemo(db, { workspaceId: uuidFlag('workspace', str(values, 'workspace')) });
      return {
        json: demo,
        text: `demo project ${demo.projectId} in workspace ${demo.workspaceId}\nread key:   ${demo.keys.read}\ningest key: ${demo.keys.ingest}`,
      };
    },
  },

  'user create': {
    name: 'user create',
    options: { workspace: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    required: ['workspace', 'email'],
    run: async ({ db, values }) => {
      // The password comes on standard input (never on the command line, where `ps` shows it); one line, its end trimmed.
      const password = (await readAll(process.stdin)).replace(/\r?\n$/, '');
      const { id } = await createUser(db, { workspaceId: uuidFlag('workspace', str(values, 'workspace')!), email: str(values, 'email')!, password, role: str(values, 'role') ?? 'viewer' });
      return idResult(id, 'created user');
    },
  },

  ...SAMPLING_COMMANDS,
};

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  if ((stream as { isTTY?: boolean }).isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
