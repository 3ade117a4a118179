import { isIP } from 'node:net';

/**
 * `SIGHTLINE_RESOLVE`: hosts the operator maps to an address, in curl's `--resolve` syntax,
 * comma separated: `acme.test:80:127.0.0.1,[::1]` style addresses in brackets for IPv6. A mapped
 * host and port connect to that address even when it is private: the operator said so (and tests
 * reach their local servers this way). Nothing else may.
 */
export type ResolveMap = ReadonlyMap<string, string>;

export const resolveKey = (host: string, port: number) => `${host.toLowerCase()}:${port}`;

export class ResolveMapError extends Error {}

export function parseResolveMap(value: string | undefined): ResolveMap {
  const map = new Map<string, string>();
  for (const entry of (value ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
    const match = /^([^:\s]+):(\d{1,5}):\[?([0-9a-fA-F:.]+)\]?$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || !isIP(match[3]!) || port < 1 || port > 65535) {
      throw new ResolveMapError(`SIGHTLINE_RESOLVE entry "${entry}" is not HOST:PORT:ADDRESS (like acme.test:80:127.0.0.1)`);
    }
    map.set(resolveKey(match[1]!, port), match[3]!);
  }
  return map;
}
