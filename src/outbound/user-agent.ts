import { readFileSync } from 'node:fs';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** How the service names itself to the servers it contacts: `SightlineBot/<version> (+<public url>/bots)`. */
export function serviceUserAgent(publicUrl: string): string {
  return `SightlineBot/${VERSION} (+${publicUrl.replace(/\/+$/, '')}/bots)`;
}

/**
 * The user agent of a process run with `config`: its public address, else the address a server of
 * it listens on (HOST and PORT), so a server and the CLI beside it name themselves alike.
 */
export function configuredUserAgent(config: { publicUrl: string | undefined; host: string; port: number }): string {
  return serviceUserAgent(config.publicUrl ?? `http://${config.host}:${config.port}`);
}
