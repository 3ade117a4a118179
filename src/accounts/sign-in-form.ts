import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { RateLimitedError } from '../http/errors.ts';
import type { Session } from './sessions.ts';

/**
 * The sign-in page's form posted by the browser itself (no script): the JSON sign-in's fields,
 * form-encoded, answered with redirects a browser follows, never an error page. Signed in: 303 to
 * the app path the form names (`next`). Refused: 303 back to it with `signIn` saying why (the page
 * says it). A browser logs no error for a redirect, where a script's request refused with 401 is
 * one in its console.
 */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Why a form sign-in was refused, as the page reads it from its address. */
export type SignInRefusal = 'wrong' | 'busy' | 'invalid' | 'refused';

export const isFormPost = (request: FastifyRequest) => (request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM_TYPE);

/**
 * A form posted from the service's own pages: its `Origin` (which browsers send with every form
 * POST) is the service's. A form another site posts could otherwise sign a visitor in as someone
 * else (login CSRF); the JSON sign-in is safe from that, a JSON POST from another site needing a
 * preflight the service never grants.
 */
export function sameOrigin(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  // The address the request was sent to (as a trusted proxy forwards it, or as it arrived), or the
  // service's public address.
  const own = [request.host, request.headers.host, publicUrl === undefined ? undefined : new URL(publicUrl).host];
  return host !== '' && own.includes(host);
}

/** An app path to go to: only a path of this service (`/...`, never `//host` or `/\host`); `/` by default. */
export function appPath(next: string | undefined): URL {
  const base = 'http://sightline.invalid';
  const path = next !== undefined && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
  const url = new URL(path, base);
  if (url.origin !== base) return new URL('/', base);
  url.searchParams.delete('signIn');
  url.searchParams.delete('retry');
  return url;
}

const relative = (url: URL) => `${url.pathname}${url.search}`;

/** Where a signed-in form goes: its `next`, or from `/` the first project's overview (as the page's script does). */
export async function landing(db: Kysely<DB>, session: Session, next: string | undefined): Promise<string> {
  const url = appPath(next);
  if (url.pathname !== '/') return relative(url);
  const first = await db.selectFrom('projects').select('id').where('workspace_id', '=', session.workspaceId).orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  return first ? `/projects/${first.id}` : relative(url);
}

/** A refused form sign-in: back to the page it came from, saying why. Anything else is an error as usual. */
export function refusedFormSignIn(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode ?? 500;
  const reason: SignInRefusal | undefined = status === 401 ? 'wrong' : status === 429 ? 'busy' : status === 403 ? 'refused' : status === 400 || status === 413 || status === 415 ? 'invalid' : undefined;
  if (reason === undefined) throw error;
  const next = (request.body as { next?: unknown } | undefined)?.next;
  const url = appPath(typeof next === 'string' ? next : undefined);
  url.searchParams.set('signIn', reason);
  if (error instanceof RateLimitedError) url.searchParams.set('retry', String(error.retryAfterSeconds));
  return seeOther(reply, relative(url));
}

/** 303 See Other: the browser follows it with a GET, and the form is not posted again on reload. */
export const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).send();
