import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';

/** Registers a URL to receive the workspace's change events; returns the signing secret, once. */
export async function addWebhook(db: Kysely<DB>, workspaceId: string, url: string): Promise<{ id: string; url: string; secret: string }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadRequestError(`url "${url}" is not an absolute URL`, { url: 'must be an absolute http(s) URL' });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new BadRequestError(`url "${url}" is not http(s)`, { url: 'must be an absolute http(s) URL' });
  }
  const workspace = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
  const id = randomUUID();
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  await db.insertInto('webhooks').values({ id, workspace_id: workspaceId, url: parsed.href, secret }).execute();
  return { id, url: parsed.href, secret };
}
