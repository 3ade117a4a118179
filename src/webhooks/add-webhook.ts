import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { OutboundError, type Outbound } from '../outbound/outbound.ts';

/**
 * Registers a URL to receive the workspace's change events; returns the signing secret, once. A URL
 * that is not http(s), or whose host is (or resolves to) a private, loopback, link-local or metadata
 * address, is refused; the delivery checks the address again when it connects (outbound.ts). A
 * host that does not resolve yet is accepted: nothing is known against it, and sends will retry.
 */
export async function addWebhook(db: Kysely<DB>, outbound: Outbound, workspaceId: string, url: string): Promise<{ id: string; url: string; secret: string }> {
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
  try {
    await outbound.vet(parsed.href);
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.failure === 'blocked_address' || error.failure === 'bad_url') {
      throw new BadRequestError(`url "${url}" cannot receive webhooks: ${error.message}`, { url: 'must reach a public address' });
    }
  }
  const id = randomUUID();
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  await db.insertInto('webhooks').values({ id, workspace_id: workspaceId, url: parsed.href, secret }).execute();
  return { id, url: parsed.href, secret };
}
