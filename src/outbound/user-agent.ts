import { readFileSync } from 'node:fs';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** How the service names itself to the servers it contacts: `SightlineBot/<version> (+<public url>/bots)`. */
export function serviceUserAgent(publicUrl: string): string {
  return `SightlineBot/${VERSION} (+${publicUrl.replace(/\/+$/, '')}/bots)`;
}
