import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { isScope, SCOPES } from './scopes.ts';
import { generateSecret } from './secrets.ts';

export interface NewKeyInput {
  workspaceId: string;
  projectId?: string | undefined;
  scopes: readonly string[];
  rateLimit?: number | undefined;
  name?: string | undefined;
}

/** Creates a key and returns its secret, the only time the secret exists outside the caller. */
export async function createApiKey(db: Kysely<DB>, input: NewKeyInput): Promise<{ id: string; key: string }> {
  const scopes = [...new Set(input.scopes.map((s) => s.trim()).filter(Boolean))];
  if (scopes.length === 0 || !scopes.every(isScope)) {
    throw new BadRequestError(`scopes must be a comma-separated list of ${SCOPES.join(', ')}`, {
      scopes: `must be one or more of ${SCOPES.join(', ')}`,
    });
  }
  const rateLimit = input.rateLimit;
  if (rateLimit !== undefined && (!Number.isInteger(rateLimit) || rateLimit < 1 || rateLimit > 1_000_000)) {
    throw new BadRequestError('rate limit must be a whole number of requests per minute from 1 to 1000000', {
      rateLimit: 'must be an integer from 1 to 1000000',
    });
  }
  const workspace = await db.selectFrom('workspaces').select('id').where('id', '=', input.workspaceId).executeTakeFirst();
  if (!workspace) throw new NotFoundError(`no workspace ${input.workspaceId}`);
  if (input.projectId !== undefined) {
    const project = await db
      .selectFrom('projects')
      .select('id')
      .where('id', '=', input.projectId)
      .where('workspace_id', '=', input.workspaceId)
      .executeTakeFirst();
    if (!project) throw new NotFoundError(`no project ${input.projectId} in workspace ${input.workspaceId}`);
  }
  const { secret, prefix, hash } = generateSecret();
  const id = randomUUID();
  await db
    .insertInto('api_keys')
    .values({
      id,
      workspace_id: input.workspaceId,
      project_id: input.projectId ?? null,
      name: input.name?.trim() || null,
      prefix,
      secret_hash: hash,
      scopes,
      rate_limit: rateLimit ?? null,
    })
    .execute();
  return { id, key: secret };
}
