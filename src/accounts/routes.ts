import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { usesBearer } from '../auth/bearer.ts';
import type { DB } from '../db/types.ts';
import { ForbiddenError, NotFoundError, RateLimitedError, UnauthorizedError } from '../http/errors.ts';
import { Envelope, Uuid } from '../http/schemas.ts';
import { strictBodies } from '../http/strict-bodies.ts';
import { readCookies, sessionCookie } from './cookies.ts';
import { FORM_TYPE, isFormPost, landing, refusedFormSignIn, sameOrigin, seeOther } from './sign-in-form.ts';
import { findSession, moveSession, SESSION_COOKIE, SESSION_MS, signIn, signOut, type Session } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person's session, when the request carries a live session cookie. */
    session: Session | null;
  }
}

/** Paths of files served as they are (the app's assets, the API reference's). */
const STATIC_PREFIXES = ['/assets/', '/docs/assets/'];

/** Sign-ins per address and email a minute: enough for a typo or two, not for guessing. */
export const SIGN_IN_PER_MINUTE = 10;

const SessionView = Type.Object(
  {
    userId: Uuid,
    email: Type.String(),
    workspaceId: Uuid,
    role: Type.Union([Type.Literal('owner'), Type.Literal('viewer')]),
    csrfToken: Type.String({ description: 'send it as `x-csrf-token` on every request that changes something' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Session' },
);

const view = (s: Session) => ({ userId: s.userId, email: s.email, workspaceId: s.workspaceId, role: s.role, csrfToken: s.csrfToken, expiresAt: s.expiresAt.toISOString() });

/** Whether the service is reached over HTTPS (directly or, trusted, through a proxy). */
const secureOf = (request: FastifyRequest, publicUrl: string | undefined) => request.protocol === 'https' || (publicUrl?.startsWith('https:') ?? false);

/**
 * Reads the session cookie of every request without an API key (request.session), and refuses a
 * request that changes something on the strength of the cookie without the session's CSRF token in
 * `x-csrf-token`: a form another site posts carries the cookie but cannot read the token. Signing
 * in, and the public paths (the beacon), are not the session's.
 */
export const sessionPlugin = fp(
  async (app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date; publicPaths: ReadonlySet<string> }) => {
    app.decorateRequest('session', null);
    app.addHook('onRequest', async (request) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      // Static assets and the public paths never read the session: no lookup for them.
      if (STATIC_PREFIXES.some((prefix) => path.startsWith(prefix)) || (options.publicPaths.has(path) && request.method === 'GET')) return;
      // A request with an API key (Bearer) is the key's: a cookie beside it is not read (nor is the
      // CSRF check, which a key's request has no need of, skipped for a session).
      if (usesBearer(request.headers.authorization)) return;
      const token = readCookies(request.headers.cookie).get(SESSION_COOKIE);
      if (token === undefined) return;
      request.session = (await findSession(options.db, token, options.now())) ?? null;
      const changes = !['GET', 'HEAD', 'OPTIONS'].includes(request.method);
      const exempt = options.publicPaths.has(path) || (path === '/app/session' && request.method === 'POST');
      if (request.session && changes && !exempt && request.headers['x-csrf-token'] !== request.session.csrfToken) {
        throw new ForbiddenError("missing or wrong CSRF token: send the session's `csrfToken` as `x-csrf-token`");
      }
    });
  },
  { name: 'sightline-session' },
);

/** Sign-in, the session, sign-out (operations.md section 8). */
export async function accountRoutes(app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date; redis: Redis | undefined; publicUrl: string | undefined }): Promise<void> {
  const { db, now } = options;
  strictBodies(app);
  await app.register(rateLimit, {
    global: false,
    // After the body is parsed: the limit counts an address and an email together.
    hook: 'preValidation',
    ...(options.redis ? { redis: options.redis, nameSpace: 'sightline-signin-', skipOnError: true } : {}),
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
  // The sign-in page's form posts itself when the page's script does not (a browser as it is):
  // the same fields, form-encoded; answered with redirects (sign-in-form.ts).
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: 8_192 }, (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))));
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.post(
    '/app/session',
    {
      errorHandler: (error, request, reply) => {
        if (!isFormPost(request)) throw error;
        return refusedFormSignIn(error, request, reply);
      },
      config: {
        rateLimit: {
          max: SIGN_IN_PER_MINUTE,
          timeWindow: 60_000,
          keyGenerator: (request: FastifyRequest) => `${request.ip}|${String((request.body as { email?: unknown } | undefined)?.email ?? '').toLowerCase()}`,
        },
      },
      schema: {
        summary: 'Sign in with an email and a password: sets the session cookie',
        tags: ['app'],
        description:
          'JSON answers the session. The sign-in page\'s form may also post itself (`application/x-www-form-urlencoded`, from the service\'s own origin, with `next`): it is answered with a 303 to `next` (a path of the app), or back to it with `signIn=wrong|busy|invalid` when refused.',
        body: Type.Object({
          email: Type.String({ minLength: 1, maxLength: 254 }),
          password: Type.String({ minLength: 1, maxLength: 1000 }),
          workspaceId: Type.Optional(Uuid),
          next: Type.Optional(Type.String({ maxLength: 2000, description: 'a form post: the app path to open once signed in' })),
        }),
        response: { 200: Envelope(SessionView) },
      },
    },
    async (request, reply) => {
      const form = isFormPost(request);
      if (form && !sameOrigin(request, options.publicUrl)) throw new ForbiddenError('a sign-in form must come from the service\'s own pages');
      const signed = await signIn(db, request.body.email, request.body.password, now(), request.body.workspaceId?.toLowerCase());
      if (!signed) throw new UnauthorizedError('wrong email or password');
      void reply.header('set-cookie', sessionCookie(SESSION_COOKIE, signed.token, { secure: secureOf(request, options.publicUrl), maxAgeSeconds: SESSION_MS / 1000 }));
      if (form) return seeOther(reply as FastifyReply, await landing(db, signed.session, request.body.next));
      return { data: view(signed.session) };
    },
  );

  typed.get(
    '/app/session',
    { schema: { summary: 'The signed-in session', tags: ['app'], response: { 200: Envelope(SessionView) } } },
    async (request) => {
      if (!request.session) throw new UnauthorizedError('not signed in');
      return { data: view(request.session) };
    },
  );

  typed.patch(
    '/app/session',
    {
      schema: {
        summary: "Move the session to another of the person's workspaces (the workspace switcher)",
        tags: ['app'],
        body: Type.Object({ workspaceId: Uuid }),
        response: { 200: Envelope(SessionView) },
      },
    },
    async (request) => {
      const token = readCookies(request.headers.cookie).get(SESSION_COOKIE);
      if (!request.session || token === undefined) throw new UnauthorizedError('not signed in');
      const moved = await moveSession(db, token, request.body.workspaceId.toLowerCase(), now());
      // Not a member there: as unknown as a workspace that does not exist.
      if (!moved) throw new NotFoundError(`no workspace ${request.body.workspaceId}`);
      return { data: view(moved) };
    },
  );

  typed.delete('/app/session', { schema: { summary: 'Sign out', tags: ['app'] } }, async (request, reply: FastifyReply) => {
    // The cookie's session ends whether or not this request read it (one sent with an API key
    // beside it did not): a cleared cookie never leaves a live session behind.
    const token = readCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (token !== undefined) await signOut(db, token);
    void reply.header('set-cookie', sessionCookie(SESSION_COOKIE, '', { secure: secureOf(request, options.publicUrl), maxAgeSeconds: 0 }));
    return reply.code(204).send();
  });
}
