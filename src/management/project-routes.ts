import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { Envelope, Uuid } from '../http/schemas.ts';
import { addCompetitor } from '../projects/add-competitor.ts';
import { createProject } from '../projects/create-project.ts';
import { listCompetitorDetails, listProjectDetails } from '../projects/list-project-details.ts';
import { recolorSubject } from '../projects/recolor-subject.ts';
import { addPrompt } from '../prompts/add-prompt.ts';
import { estimatePrompts } from '../prompts/estimate-prompts.ts';
import { listPrompts } from '../prompts/list-prompts.ts';
import { checkPromptInput } from '../prompts/prompt-settings.ts';
import { removePrompt } from '../prompts/remove-prompt.ts';
import { updatePrompt } from '../prompts/update-prompt.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { MANAGEMENT, memberOf, ownerOf, projectIn, promptIn } from './access.ts';

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

/** Projects, their competitors and their prompts: `project create`, `competitor add|list`, `prompt add|update|remove|list|estimate`. */
export async function projectManagementRoutes(app: FastifyInstance, deps: { db: Kysely<DB>; now: () => Date; configuredEngines: readonly EngineKey[] }): Promise<void> {
  const { db, now } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get('/app/api/projects', { schema: { ...MANAGEMENT, summary: "The workspace's projects" } }, async (request) => ({ data: { projects: await listProjectDetails(db, memberOf(request).workspaceId) } }));

  typed.post('/app/api/projects', { schema: { ...MANAGEMENT, summary: 'Create a project (a brand)', body: Type.Object(Subject), response: { 200: Envelope(Id) } } }, async (request) => ({
    data: await createProject(db, ownerOf(request).workspaceId, request.body),
  }));

  typed.get('/app/api/projects/:id/competitors', { schema: { ...MANAGEMENT, summary: "A project's competitors", params: Id } }, async (request) => ({
    data: { competitors: await listCompetitorDetails(db, await projectIn(db, memberOf(request).workspaceId, request.params.id)) },
  }));

  typed.post('/app/api/projects/:id/competitors', { schema: { ...MANAGEMENT, summary: 'Add a competitor', params: Id, body: Type.Object(Subject), response: { 200: Envelope(Id) } } }, async (request) => ({
    data: await addCompetitor(db, await projectIn(db, ownerOf(request).workspaceId, request.params.id), request.body),
  }));

  typed.patch(
    '/app/api/projects/:id/subjects/:subjectId',
    {
      schema: {
        ...MANAGEMENT,
        summary: "Change a subject's chart colour (the brand's subject id is the project's; a competitor's is its own)",
        params: Type.Object({ id: Uuid, subjectId: Uuid }),
        body: Type.Object({ color: Type.Union([Type.String({ maxLength: 20 }), Type.Null()], { description: '#rgb or #rrggbb; null for none' }) }),
        response: { 200: Envelope(Type.Object({ id: Uuid, color: Type.Union([Type.String(), Type.Null()]) })) },
      },
    },
    async (request) => {
      const projectId = await projectIn(db, ownerOf(request).workspaceId, request.params.id);
      return { data: await recolorSubject(db, projectId, request.params.subjectId.toLowerCase(), request.body.color) };
    },
  );

  typed.get('/app/api/projects/:id/prompts', { schema: { ...MANAGEMENT, summary: "A project's prompts, with the monthly cost estimate", params: Id } }, async (request) => {
    const prompts = await listPrompts(db, await projectIn(db, memberOf(request).workspaceId, request.params.id), deps.configuredEngines);
    return { data: { prompts, estimate: estimatePrompts(prompts, deps.configuredEngines) } };
  });

  typed.post(
    '/app/api/projects/:id/prompts',
    { schema: { ...MANAGEMENT, summary: 'Add a prompt to be checked', params: Id, body: Type.Object({ text: Type.String(), ...PromptFields }), response: { 200: Envelope(Id) } } },
    async (request) => {
      const projectId = await projectIn(db, ownerOf(request).workspaceId, request.params.id);
      const settings = checkPromptInput(request.body);
      return { data: await addPrompt(db, projectId, { ...settings, text: settings.text! }) };
    },
  );

  typed.patch(
    '/app/api/prompts/:id',
    { schema: { ...MANAGEMENT, summary: "Change a prompt's settings", params: Id, body: Type.Object({ text: Type.Optional(Type.String()), ...PromptFields }), response: { 200: Envelope(Id) } } },
    async (request) => ({ data: await updatePrompt(db, await promptIn(db, ownerOf(request).workspaceId, request.params.id), checkPromptInput(request.body)) }),
  );

  typed.delete('/app/api/prompts/:id', { schema: { ...MANAGEMENT, summary: 'Remove a prompt (its runs stay)', params: Id } }, async (request) => ({
    data: await removePrompt(db, await promptIn(db, ownerOf(request).workspaceId, request.params.id), now()),
  }));
}
