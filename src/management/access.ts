import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Session } from '../accounts/sessions.ts';
import type { DB } from '../db/types.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../http/errors.ts';

/** Every management operation's tag in the OpenAPI document. */
export const MANAGEMENT = { tags: ['management'] };

/** The signed-in member, or 401. */
export function memberOf(request: FastifyRequest): Session {
  if (!request.session) throw new UnauthorizedError('sign in first (POST /app/session)');
  return request.session;
}

/** An owner of the session's workspace, or 403: viewers read. */
export function ownerOf(request: FastifyRequest): Session {
  const session = memberOf(request);
  if (session.role !== 'owner') throw new ForbiddenError('only an owner of the workspace changes its settings');
  return session;
}

/** A project of the workspace (its stored id), or 404: another workspace's ids answer as unknown ones do. */
export async function projectIn(db: Kysely<DB>, workspaceId: string, projectId: string): Promise<string> {
  const project = await db.selectFrom('projects').select('id').where('id', '=', projectId.toLowerCase()).where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (!project) throw new NotFoundError(`no project ${projectId}`);
  return project.id;
}

/** A prompt of the workspace (its stored id), or 404. */
export async function promptIn(db: Kysely<DB>, workspaceId: string, promptId: string): Promise<string> {
  const prompt = await db.selectFrom('prompts').select('id').where('id', '=', promptId.toLowerCase()).where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (!prompt) throw new NotFoundError(`no prompt ${promptId}`);
  return prompt.id;
}
