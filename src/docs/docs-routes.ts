import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { preferredEncoding } from '../http/accept-encoding.ts';
import { holds } from '../http/cached-reply.ts';
import { NotFoundError } from '../http/errors.ts';

/**
 * The reference's own policy: everything from this origin. `data:` images are the icons inlined in
 * Swagger UI's stylesheet (no request leaves the page for them); "try it" calls this origin only,
 * the document's `servers` being this service.
 */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const YEAR_SECONDS = 365 * 24 * 3600;
const SPEC_URL = '/api/v1/openapi.json';

interface Asset {
  type: string;
  body: Buffer;
  etag: string;
  /** Compressed on first request: the bundle takes ~0.1 s, which every app start (and test) would pay. */
  encoded: Map<'br' | 'gzip', Buffer>;
}

/** Where each served file comes from: Swagger UI's distribution, and the page's own two files. Nothing else is served. */
function sources(): Record<string, { path: string; type: string }> {
  const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const own = fileURLToPath(new URL('./public/', import.meta.url));
  return {
    'swagger-ui-bundle.js': { path: join(swaggerUi, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
    'swagger-ui.css': { path: join(swaggerUi, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
    'favicon-32x32.png': { path: join(swaggerUi, 'favicon-32x32.png'), type: 'image/png' },
    'docs.js': { path: join(own, 'docs.js'), type: 'text/javascript; charset=utf-8' },
    'docs.css': { path: join(own, 'docs.css'), type: 'text/css; charset=utf-8' },
  };
}

/**
 * GET /docs: the API reference, Swagger UI rendering /api/v1/openapi.json, with "try it" against
 * this service. Swagger UI comes from the `swagger-ui-dist` package and is served from memory by
 * this plugin (no CDN): the page works with no network beyond this origin. Asset references carry
 * `?v=<hash of the assets>`, so a browser keeps them for a year and a new version is a new URL.
 */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const assets = new Map<string, Asset>();
  const version = createHash('sha256');
  for (const [name, source] of Object.entries(sources())) {
    // The source maps are not served: their comment would only make a developer's tools ask for a 404.
    let body = readFileSync(source.path);
    if (source.type.startsWith('text/')) body = Buffer.from(body.toString('utf8').replace(/\n?\/[/*]# sourceMappingURL=\S+\s*$/, '\n'));
    version.update(name).update(body);
    assets.set(name, { type: source.type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`, encoded: new Map() });
  }
  const v = version.digest('hex').slice(0, 12);
  const page = Buffer.from(renderPage((name) => `/docs/assets/${name}?v=${v}`));
  const pageEtag = `"${createHash('sha256').update(page).digest('base64url').slice(0, 22)}"`;

  app.addHook('onSend', async (_request, reply) => {
    void reply.headers(SECURITY_HEADERS);
  });

  const hidden = { schema: { hide: true } };

  app.get('/docs', hidden, async (request, reply) => {
    // Revalidated each time (it names the current assets); answered 304 while unchanged.
    void reply.header('cache-control', 'no-cache').header('etag', pageEtag).type('text/html; charset=utf-8');
    if (holds(request, pageEtag)) return reply.code(304).send();
    return reply.send(page);
  });

  app.get<{ Params: { name: string }; Querystring: { v?: string } }>('/docs/assets/:name', hidden, async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) throw new NotFoundError(`no asset ${request.params.name}`);
    void reply
      .header('cache-control', request.query.v === v ? `public, max-age=${YEAR_SECONDS}, immutable` : 'no-cache')
      .header('etag', asset.etag)
      .header('vary', 'Accept-Encoding')
      .type(asset.type);
    if (holds(request, asset.etag)) return reply.code(304).send();
    return sendAsset(request, reply, asset);
  });
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  // A PNG is compressed already.
  const encoding = asset.type.startsWith('image/') ? undefined : preferredEncoding(request);
  if (encoding === undefined) return reply.send(asset.body);
  let encoded = asset.encoded.get(encoding);
  if (!encoded) {
    encoded = encoding === 'br' ? brotliCompressSync(asset.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }) : gzipSync(asset.body, { level: 9 });
    asset.encoded.set(encoding, encoded);
  }
  return reply.header('content-encoding', encoding).send(encoded);
}

/** The page: a mount point and its scripts; the settings are data attributes (the policy allows no inline script). */
function renderPage(asset: (name: string) => string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sightline API reference</title>
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="stylesheet" href="${asset('docs.css')}">
</head>
<body>
<noscript><p class="noscript">The reference needs JavaScript. The document it shows is at <a href="${SPEC_URL}">${SPEC_URL}</a>.</p></noscript>
<div id="swagger-ui" data-url="${SPEC_URL}"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('docs.js')}"></script>
</body>
</html>
`;
}
