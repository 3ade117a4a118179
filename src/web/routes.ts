import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { acceptsEncoding } from '../http/accept-encoding.ts';
import { holds } from '../http/cached-reply.ts';
import { NotFoundError, UnauthorizedError } from '../http/errors.ts';
import { Envelope, Uuid } from '../http/schemas.ts';
import { utcDay } from '../usage/calendar.ts';
import { listLocations } from './list-locations.ts';
import { loadAssets, versionReferences, type Asset } from './load-assets.ts';

/**
 * Every page and asset of the app says: scripts, styles, images and requests from this origin
 * only (so no inline script, no CDN), never framed by another site, no referrer to other sites.
 */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const YEAR_SECONDS = 365 * 24 * 3600;

/** A project's pages: the address under `/projects/:id` and the page (pages/<name>.html) it answers. */
const PROJECT_PAGES = [
  ['', 'overview'],
  ['/citations', 'citations'],
  ['/changes', 'changes'],
  ['/traffic', 'traffic'],
  ['/prompts', 'prompts'],
  ['/runs/:runId', 'run'],
  ['/settings', 'settings'],
] as const;

type PageName = (typeof PROJECT_PAGES)[number][1];

/**
 * The web app (operations.md section 8): sign-in, then per project the overview, citations, changes,
 * traffic, prompts and runs (with each run's detail), and the workspace's settings. Pages are static
 * HTML with small scripts that read the public API as signed-in members (auth-plugin.ts), and the
 * management API for settings: every number on a page comes from the same endpoints API clients
 * use. Assets are served from memory by this service (no CDN, no build step).
 *
 * Every page address answers its page when the request carries a live session, else the sign-in
 * page (at the same address, so a deep link survives signing in).
 */
export async function webRoutes(app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date }): Promise<void> {
  const { version, assets } = loadAssets(fileURLToPath(new URL('./public/', import.meta.url)));
  const read = (name: string) => readFileSync(new URL(`./pages/${name}`, import.meta.url), 'utf8');
  const signInPage = versionReferences(read('sign-in.html'), version);
  const partials = { head: read('partials/head.html'), header: read('partials/header.html'), range: read('partials/range.html'), filters: read('partials/filters.html') };
  const pages = new Map<PageName, string>(PROJECT_PAGES.map(([, name]) => [name, versionReferences(composePage(read(`${name}.html`), name, partials), version)]));

  app.addHook('onSend', async (_request, reply) => {
    void reply.headers(SECURITY_HEADERS);
  });

  const sendPage = (name: PageName) => (request: FastifyRequest, reply: FastifyReply) => {
    // The server's UTC day, so the range switch counts days as the API does, whatever the browser's clock says.
    const html = (request.session ? pages.get(name)! : signInPage).replace('{{today}}', utcDay(options.now()));
    // A page depends on the session cookie: never kept by a cache.
    void reply.header('cache-control', 'no-store').header('vary', 'Cookie, Accept-Encoding').type('text/html; charset=utf-8');
    if (acceptsEncoding(request, 'gzip')) return reply.header('content-encoding', 'gzip').send(gzipSync(html));
    return reply.send(html);
  };

  const pageSchema = { hide: true } as const;
  app.get('/', { schema: pageSchema }, sendPage('overview'));
  // Settings before any project exists (creating the first one).
  app.get('/settings', { schema: pageSchema }, sendPage('settings'));
  for (const [suffix, name] of PROJECT_PAGES) app.get(`/projects/:id${suffix}`, { schema: pageSchema }, sendPage(name));

  app.get<{ Params: { name: string }; Querystring: { v?: string } }>('/assets/:name', { schema: pageSchema }, async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) throw new NotFoundError(`no asset ${request.params.name}`);
    // Versioned references are immutable; a bare one is revalidated each time.
    void reply
      .header('cache-control', request.query.v === version ? `public, max-age=${YEAR_SECONDS}, immutable` : 'no-cache')
      .header('etag', asset.etag)
      .header('vary', 'Accept-Encoding')
      .type(asset.type);
    if (holds(request, asset.etag)) return reply.code(304).send();
    return sendAsset(request, reply, asset);
  });

  // The location filter's choices: the analytics API has no list of locations, so the app reads them here.
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/app/web/projects/:id/locations',
    {
      schema: {
        hide: true,
        params: Type.Object({ id: Uuid }),
        response: { 200: Envelope(Type.Object({ locations: Type.Array(Type.String()) })) },
      },
    },
    async (request) => {
      if (!request.session) throw new UnauthorizedError('not signed in');
      return { data: { locations: await listLocations(options.db, request.session.workspaceId, request.params.id.toLowerCase()) } };
    },
  );
}

/**
 * A page with its shared pieces put in at start-up (still static: nothing of a request's goes in but
 * the day): `<!--#header-->` (the top bar and the project's navigation, this page's link marked
 * current), `<!--#range-->` and `<!--#filters-->` (the range switch and the analytics filters).
 */
function composePage(html: string, name: PageName, partials: { head: string; header: string; range: string; filters: string }): string {
  const current = name === 'run' ? 'prompts' : name;
  const header = partials.header.replace(`data-nav="${current}"`, `data-nav="${current}" aria-current="page"`);
  return html.replace('<!--#head-->', partials.head.trimEnd()).replace('<!--#header-->', header).replace('<!--#range-->', partials.range).replace('<!--#filters-->', partials.filters);
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  if (acceptsEncoding(request, 'br')) return reply.header('content-encoding', 'br').send(asset.br);
  if (acceptsEncoding(request, 'gzip')) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}
