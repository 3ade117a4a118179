import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { createUser } from '../accounts/create-user.ts';
import { changeMemberRole, removeMember } from '../accounts/manage-members.ts';
import { createApiKey } from '../auth/create-api-key.ts';
import { listApiKeys } from '../auth/list-api-keys.ts';
import { revokeApiKey } from '../auth/revoke-api-key.ts';
import type { DB } from '../db/types.ts';
import { seedDemo } from '../demo/seed-demo.ts';
import { NotFoundError } from '../http/errors.ts';
import { Envelope, Nullable, Uuid } from '../http/schemas.ts';
import type { Outbound } from '../outbound/outbound.ts';
import { getUsage } from '../usage/get-usage.ts';
import { grantCredits } from '../usage/grant-credits.ts';
import { addWebhook } from '../webhooks/add-webhook.ts';
import { listWebhooks } from '../webhooks/list-webhooks.ts';
import { removeWebhook } from '../webhooks/remove-webhook.ts';
import { createOwnedWorkspace } from '../workspaces/create-workspace.ts';
import { PLAN_NAMES } from '../workspaces/plans.ts';
import { updateWorkspace, workspaceControls } from '../workspaces/update-workspace.ts';
import { MANAGEMENT, memberOf, ownerOf, projectIn } from './access.ts';

const Id = Type.Object({ id: Uuid });
const Controls = Type.Object({
  id: Uuid,
  plan: Type.String(),
  apiAccess: Nullable(Type.Boolean({ description: "null: the plan decides (every plan but `free` has API access)" })),
  creditsEnforced: Type.Boolean(),
  dailyCeilingUsd: Type.Number(),
});

/**
 * The workspace and what belongs to it rather than to a project: `workspace create|update`,
 * `credits grant`, `key create|list|revoke`, `webhook add|list`, `user create`, `demo`, and usage.
 */
export async function workspaceManagementRoutes(app: FastifyInstance, deps: { db: Kysely<DB>; now: () => Date; webhookOutbound: Outbound }): Promise<void> {
  const { db, now } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get('/app/api/workspaces', { schema: { ...MANAGEMENT, summary: "The signed-in person's workspaces and roles" } }, async (request) => {
    const session = memberOf(request);
    const rows = await db
      .selectFrom('memberships as m')
      .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
      .select(['w.id', 'w.name', 'w.plan', 'm.role'])
      .where('m.user_id', '=', session.userId)
      .orderBy('m.created_at')
      .orderBy('w.id')
      .execute();
    return { data: { workspaces: rows.map((r) => ({ ...r, current: r.id === session.workspaceId })) } };
  });

  typed.post(
    '/app/api/workspaces',
    {
      schema: {
        ...MANAGEMENT,
        summary: 'Create a workspace: its maker (an owner of the current one) becomes its owner; switch to it with PATCH /app/session',
        body: Type.Object({ name: Type.String(), plan: Type.Optional(Type.String({ description: PLAN_NAMES.join(', ') })) }),
        response: { 200: Envelope(Id) },
      },
    },
    async (request) => ({ data: await createOwnedWorkspace(db, ownerOf(request).userId, request.body) }),
  );

  typed.get('/app/api/workspace', { schema: { ...MANAGEMENT, summary: "The current workspace's plan and controls", response: { 200: Envelope(Controls) } } }, async (request) => ({
    data: await workspaceControls(db, memberOf(request).workspaceId),
  }));

  typed.patch(
    '/app/api/workspace',
    {
      schema: {
        ...MANAGEMENT,
        summary: "Change the current workspace's plan, API access, credit enforcement or daily ceiling",
        body: Type.Object({ plan: Type.Optional(Type.String()), apiAccess: Type.Optional(Nullable(Type.Boolean({ description: 'null: as the plan has it' }))), creditsEnforced: Type.Optional(Type.Boolean()), dailyCeilingUsd: Type.Optional(Type.Number()) }),
        response: { 200: Envelope(Controls) },
      },
    },
    async (request) => {
      const { id } = await updateWorkspace(db, ownerOf(request).workspaceId, request.body);
      return { data: await workspaceControls(db, id) };
    },
  );

  typed.post(
    '/app/api/credits',
    {
      schema: {
        ...MANAGEMENT,
        summary: "Grant credits to the current workspace's month (recorded in the ledger with the note)",
        body: Type.Object({ credits: Type.Number(), note: Type.Optional(Type.String({ maxLength: 500 })) }),
        response: { 200: Envelope(Type.Object({ workspaceId: Uuid, credits: Type.Number() })) },
      },
    },
    async (request) => ({ data: await grantCredits(db, ownerOf(request).workspaceId, request.body.credits, request.body.note, now()) }),
  );

  typed.get('/app/api/usage', { schema: { ...MANAGEMENT, summary: "The workspace's credits and spend" } }, async (request) => ({ data: await getUsage(db, memberOf(request).workspaceId, now()) }));

  typed.get('/app/api/keys', { schema: { ...MANAGEMENT, summary: "The workspace's API keys (never a secret)" } }, async (request) => ({ data: { keys: await listApiKeys(db, memberOf(request).workspaceId) } }));

  typed.post(
    '/app/api/keys',
    {
      schema: {
        ...MANAGEMENT,
        summary: 'Create an API key: its secret is in this answer only',
        body: Type.Object({ projectId: Type.Optional(Uuid), scopes: Type.Array(Type.String(), { minItems: 1, maxItems: 4 }), rateLimit: Type.Optional(Type.Integer()), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      },
    },
    async (request) => {
      const session = ownerOf(request);
      const projectId = request.body.projectId === undefined ? undefined : await projectIn(db, session.workspaceId, request.body.projectId);
      return { data: await createApiKey(db, { workspaceId: session.workspaceId, projectId, scopes: request.body.scopes, rateLimit: request.body.rateLimit, name: request.body.name }) };
    },
  );

  typed.delete('/app/api/keys/:id', { schema: { ...MANAGEMENT, summary: 'Revoke an API key: it stops on the next request', params: Id } }, async (request) => {
    const session = ownerOf(request);
    const key = await db.selectFrom('api_keys').select('id').where('id', '=', request.params.id.toLowerCase()).where('workspace_id', '=', session.workspaceId).executeTakeFirst();
    if (!key) throw new NotFoundError(`no key ${request.params.id}`);
    return { data: await revokeApiKey(db, key.id, now()) };
  });

  typed.get('/app/api/webhooks', { schema: { ...MANAGEMENT, summary: "The workspace's webhooks (never a secret)" } }, async (request) => ({ data: { webhooks: await listWebhooks(db, memberOf(request).workspaceId) } }));

  typed.post('/app/api/webhooks', { schema: { ...MANAGEMENT, summary: 'Add a webhook: its signing secret is in this answer only', body: Type.Object({ url: Type.String({ maxLength: 2000 }) }) } }, async (request) => ({
    data: await addWebhook(db, deps.webhookOutbound, ownerOf(request).workspaceId, request.body.url),
  }));

  typed.delete('/app/api/webhooks/:id', { schema: { ...MANAGEMENT, summary: 'Remove a webhook: nothing more is sent to it', params: Id } }, async (request) => ({
    data: await removeWebhook(db, ownerOf(request).workspaceId, request.params.id.toLowerCase()),
  }));

  typed.get('/app/api/members', { schema: { ...MANAGEMENT, summary: "The workspace's members and their roles" } }, async (request) => {
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
    { schema: { ...MANAGEMENT, summary: 'Add a member (or change their role); a new person signs in with the password given', body: Type.Object({ email: Type.String(), role: Type.String(), password: Type.String() }), response: { 200: Envelope(Id) } } },
    async (request) => ({ data: await createUser(db, { workspaceId: ownerOf(request).workspaceId, email: request.body.email, role: request.body.role, password: request.body.password }) }),
  );

  typed.patch(
    '/app/api/members/:id',
    { schema: { ...MANAGEMENT, summary: "Change a member's role; the last owner stays one (409)", params: Id, body: Type.Object({ role: Type.String() }) } },
    async (request) => ({ data: await changeMemberRole(db, ownerOf(request).workspaceId, request.params.id.toLowerCase(), request.body.role) }),
  );

  typed.delete('/app/api/members/:id', { schema: { ...MANAGEMENT, summary: 'Remove a member: their sessions here end at once; the last owner stays (409)', params: Id } }, async (request) => ({
    data: await removeMember(db, ownerOf(request).workspaceId, request.params.id.toLowerCase()),
  }));

  typed.post(
    '/app/api/demo',
    {
      schema: {
        ...MANAGEMENT,
        summary: 'Seed the demo project (a brand, three competitors, topics, 90 days of runs) into the current workspace, with two keys shown this once',
        response: { 200: Envelope(Type.Object({ workspaceId: Uuid, projectId: Uuid, keys: Type.Object({ read: Type.String(), ingest: Type.String() }) })) },
      },
    },
    async (request) => ({ data: await seedDemo(db, { workspaceId: ownerOf(request).workspaceId, now: now() }) }),
  );
}
