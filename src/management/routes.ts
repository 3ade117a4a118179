import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Session } from '../accounts/sessions.ts';
import { createUser } from '../accounts/create-user.ts';
import type { DB } from '../db/types.ts';
import { createApiKey } from '../auth/create-api-key.ts';
import { listApiKeys } from '../auth/list-api-keys.ts';
import { revokeApiKey } from '../auth/revoke-api-key.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../http/errors.ts';
import { Envelope, Uuid } from '../http/schemas.ts';
import type { Outbound } from '../outbound/outbound.ts';
import { addCompetitor } from '../projects/add-competitor.ts';
import { createProject } from '../projects/create-project.ts';
import { listCompetitorDetails, listProjectDetails } from '../projects/list-project-details.ts';
import { addPrompt } from '../prompts/add-prompt.ts';
import { estimatePrompts } from '../prompts/estimate-prompts.ts';
import { listPrompts } from '../prompts/list-prompts.ts';
import { checkPromptInput } from '../prompts/prompt-settings.ts';
import { removePrompt } from '../prompts/remove-prompt.ts';
import { updatePrompt } from '../prompts/update-prompt.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { getUsage } from '../usage/get-usage.ts';
import { addWebhook } from '../webhooks/add-webhook.ts';
import { listWebhooks } from '../webhooks/list-webhooks.ts';

export interface ManagementDeps {
  db: Kysely<DB>;
  now: () => Date;
  configuredEngines: readonly EngineKey[];
  /** The guarded client webhooks are checked with (the same one that delivers them). */
  webhookOutbound: Outbound;
}

const Subject = { name: Type.String(), domain: Type.String(), color: Type.Optional(Type.String()), aliases: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })) };
const PromptFields = {
  topic: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  branded: Type.Optional(Type.Boolean()),
  locations: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
  engines: Type.Optional(Type.Union([Type.Array(Type.String(), { maxItems: 7 }), Type.Null()], { description: 'null: every configured engine' })),
  samples: Type.Optional(Type.Integer()),
  cadence: Type.Optional(Type.String()),
};
const Id = Type.Object({ id: Uuid });
const common = { tags: ['management'] };

/** The signed-in member, or 401. */
function memberOf(request: FastifyRequest): Session {
  if (!request.session) throw new UnauthorizedError('sign in first (POST /app/session)');
  return request.session;
}

/** An owner of the session's workspace, or 403: viewers read. */
function ownerOf(request: FastifyRequest): Session {
  const session = memberOf(request);
  if (session.role !== 'owner') throw new ForbiddenError('only an owner of the workspace changes its settings');
  return session;
}

/**
 * The management API of the app (operations.md section 8): what the CLI does, for the signed-in
 * members of a workspace, through the same domain operations and their validation. Reads for every
 * member, changes for owners, each change with the session's CSRF token (accounts/routes.ts).
 * Everything is the session's workspace's: another workspace's ids answer 404, as unknown ones do.
 */
export async function managementRoutes(app: FastifyInstance, deps: ManagementDeps): Promise<void> {
  const { db, now } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  const projectIn = async (workspaceId: string, projectId: string) => {
    const project = await db.selectFrom('projects').select('id').where('id', '=', projectId.toLowerCase()).where('workspace_id', '=', workspaceId).executeTakeFirst();
    if (!project) throw new NotFoundError(`no project ${projectId}`);
    return project.id;
  };
  const promptIn = async (workspaceId: string, promptId: string) => {
    const prompt = await db.selectFrom('prompts').select('id').where('id', '=', promptId.toLowerCase()).where('workspace_id', '=', workspaceId).executeTakeFirst();
    if (!prompt) throw new NotFoundError(`no prompt ${promptId}`);
    return prompt.id;
  };

  typed.get('/app/api/workspaces', { schema: { ...common, summary: "The signed-in person's workspaces and roles" } }, async (request) => {
    const session = memberOf(request);
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
      .select(['w.id', 'w.name', 'w.plan', 'm.role'])
      .where('m.user_id', '=', session.userId)
      .orderBy('m.created_at')
      .execute();
    return { data: { workspaces: rows.map((r) => ({ ...r, current: r.id === session.workspaceId })) } };
  });

  typed.get('/app/api/projects', { schema: { ...common, summary: "The workspace's projects" } }, async (request) => ({ data: { projects: await listProjectDetails(db, memberOf(request).workspaceId) } }));

  typed.post('/app/api/projects', { schema: { ...common, summary: 'Create a project (a brand)', body: Type.Object(Subject), response: { 200: Envelope(Id) } } }, async (request) => ({
    data: await createProject(db, ownerOf(request).workspaceId, request.body),
  }));

  typed.get('/app/api/projects/:id/competitors', { schema: { ...common, summary: "A project's competitors", params: Id } }, async (request) => ({
    data: { competitors: await listCompetitorDetails(db, await projectIn(memberOf(request).workspaceId, request.params.id)) },
  }));

  typed.post('/app/api/projects/:id/competitors', { schema: { ...common, summary: 'Add a competitor', params: Id, body: Type.Object(Subject), response: { 200: Envelope(Id) } } }, async (request) => ({
    data: await addCompetitor(db, await projectIn(ownerOf(request).workspaceId, request.params.id), request.body),
  }));

  typed.get('/app/api/projects/:id/prompts', { schema: { ...common, summary: "A project's prompts, with the monthly cost estimate", params: Id } }, async (request) => {
    const prompts = await listPrompts(db, await projectIn(memberOf(request).workspaceId, request.params.id), deps.configuredEngines);
    return { data: { prompts, estimate: estimatePrompts(prompts, deps.configuredEngines) } };
  });

  typed.post(
    '/app/api/projects/:id/prompts',
    { schema: { ...common, summary: 'Add a prompt to be checked', params: Id, body: Type.Object({ text: Type.String(), ...PromptFields }), response: { 200: Envelope(Id) } } },
    async (request) => {
      const projectId = await projectIn(ownerOf(request).workspaceId, request.params.id);
      const settings = checkPromptInput(request.body);
      return { data: await addPrompt(db, projectId, { ...settings, text: settings.text! }) };
    },
  );

  typed.patch(
    '/app/api/prompts/:id',
    { schema: { ...common, summary: "Change a prompt's settings", params: Id, body: Type.Object({ text: Type.Optional(Type.String()), ...PromptFields }), response: { 200: Envelope(Id) } } },
    async (request) => ({ data: await updatePrompt(db, await promptIn(ownerOf(request).workspaceId, request.params.id), checkPromptInput(request.body)) }),
  );

  typed.delete('/app/api/prompts/:id', { schema: { ...common, summary: 'Remove a prompt (its runs stay)', params: Id } }, async (request) => ({
    data: await removePrompt(db, await promptIn(ownerOf(request).workspaceId, request.params.id), now()),
  }));

  typed.get('/app/api/keys', { schema: { ...common, summary: "The workspace's API keys (never a secret)" } }, async (request) => ({ data: { keys: await listApiKeys(db, memberOf(request).workspaceId) } }));

  typed.post(
    '/app/api/keys',
    {
      schema: {
        ...common,
        summary: 'Create an API key: its secret is in this answer only',
        body: Type.Object({ projectId: Type.Optional(Uuid), scopes: Type.Array(Type.String(), { minItems: 1, maxItems: 4 }), rateLimit: Type.Optional(Type.Integer()), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      },
    },
    async (request) => {
      const session = ownerOf(request);
      const projectId = request.body.projectId === undefined ? undefined : await projectIn(session.workspaceId, request.body.projectId);
      return { data: await createApiKey(db, { workspaceId: session.workspaceId, projectId, scopes: request.body.scopes, rateLimit: request.body.rateLimit, name: request.body.name }) };
    },
  );

  typed.delete('/app/api/keys/:id', { schema: { ...common, summary: 'Revoke an API key: it stops on the next request', params: Id } }, async (request) => {
    const session = ownerOf(request);
    const key = await db.selectFrom('api_keys').select('id').where('id', '=', request.params.id.toLowerCase()).where('workspace_id', '=', session.workspaceId).executeTakeFirst();
    if (!key) throw new NotFoundError(`no key ${request.params.id}`);
    return { data: await revokeApiKey(db, key.id, now()) };
  });

  typed.get('/app/api/webhooks', { schema: { ...common, summary: "The workspace's webhooks (never a secret)" } }, async (request) => ({ data: { webhooks: await listWebhooks(db, memberOf(request).workspaceId) } }));

  typed.post('/app/api/webhooks', { schema: { ...common, summary: 'Add a webhook: its signing secret is in this answer only', body: Type.Object({ url: Type.String({ maxLength: 2000 }) }) } }, async (request) => ({
    data: await addWebhook(db, deps.webhookOutbound, ownerOf(request).workspaceId, request.body.url),
  }));

  typed.get('/app/api/members', { schema: { ...common, summary: "The workspace's members and their roles" } }, async (request) => {
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email', 'm.role', 'm.created_at'])
      .where('m.workspace_id', '=', memberOf(request).workspaceId)
      .orderBy('m.created_at')
      .execute();
    return { data: { members: rows.map((r) => ({ id: r.id, email: r.email, role: r.role, since: r.created_at.toISOString() })) } };
  });

  typed.post(
    '/app/api/members',
    { schema: { ...common, summary: 'Add a member (or change their role); a new person signs in with the password given', body: Type.Object({ email: Type.String(), role: Type.String(), password: Type.String() }), response: { 200: Envelope(Id) } } },
    async (request) => ({ data: await createUser(db, { workspaceId: ownerOf(request).workspaceId, email: request.body.email, role: request.body.role, password: request.body.password }) }),
  );

  typed.get('/app/api/usage', { schema: { ...common, summary: "The workspace's credits and spend" } }, async (request) => ({ data: await getUsage(db, memberOf(request).workspaceId, now()) }));
}
