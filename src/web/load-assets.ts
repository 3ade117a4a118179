import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** One static file of the app, held in memory with its compressed forms. */
export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
  etag: string;
}

export interface AssetSet {
  /** A hash of every asset: the `?v=` that lets a browser keep them for a year. */
  version: string;
  assets: ReadonlyMap<string, Asset>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The app's assets (src/web/public), read once at start-up: a few kilobytes, served from memory,
 * compressed ahead. There is no build step, so the cache-busting version is added here: every
 * `import ... from './x.js'` between the scripts gets `?v=<version>`, as the pages' references do
 * (routes.ts), and a browser keeps what it loaded until the files change. A file of a type not
 * listed is not served (deny by default).
 */
export function loadAssets(dir: string): AssetSet {
  const files = readdirSync(dir)
    .filter((name) => TYPES[extname(name)] !== undefined)
    .sort();
  const raw = new Map(files.map((name) => [name, readFileSync(join(dir, name))]));
  const hash = createHash('sha256');
  for (const [name, body] of raw) hash.update(name).update(body);
  const version = hash.digest('hex').slice(0, 12);
  const assets = new Map<string, Asset>();
  for (const [name, original] of raw) {
    const body = extname(name) === '.js' ? Buffer.from(original.toString('utf8').replace(/(from\s+'\.\/[a-z0-9-]+\.js)'/g, `$1?v=${version}'`)) : original;
    assets.set(name, {
      type: TYPES[extname(name)]!,
      body,
      gzip: gzipSync(body, { level: 9 }),
      br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    });
  }
  return { version, assets };
}

/** `/assets/x` references of a page, versioned. */
export function versionReferences(html: string, version: string): string {
  return html.replace(/((?:src|href)="\/assets\/[a-z0-9.-]+)"/g, `$1?v=${version}"`);
}
