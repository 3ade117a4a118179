import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { isPublicAddress } from './address-policy.ts';
import { resolveKey, type ResolveMap } from './resolve-map.ts';

/** Why an outbound request failed, as the callers tell cases apart (URL checks, providers, webhooks). */
export type OutboundFailure =
  | 'bad_url'
  | 'blocked_address'
  | 'dns_nxdomain'
  | 'dns_temporary'
  | 'timeout'
  | 'refused'
  | 'tls'
  | 'network'
  | 'too_many_redirects';

export class OutboundError extends Error {
  readonly failure: OutboundFailure;
  constructor(failure: OutboundFailure, message: string) {
    super(message);
    this.name = 'OutboundError';
    this.failure = failure;
  }
}

export interface OutboundRequest {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange, redirects included. Default 10 s. */
  timeoutMs?: number;
  /** Bytes of body kept; the rest is not read. Default 1 MiB. */
  maxBytes?: number;
  /** Redirects followed (each hop checked like the first). Default 0: a 3xx is returned as is. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than maxBytes. */
  truncated: boolean;
  /** The URL that answered (after redirects). */
  url: string;
  /** Each redirect followed: its status and where it pointed. */
  redirects: { status: number; location: string }[];
}

export interface Outbound {
  request(url: string, init?: OutboundRequest): Promise<OutboundResponse>;
  /** Rejects (OutboundError) a URL this client would not connect to now: not http(s), or not a public address. */
  vet(url: string): Promise<void>;
  close(): Promise<void>;
}

export interface OutboundOptions {
  userAgent: string;
  /** Hosts the operator mapped (SIGHTLINE_RESOLVE): they may be private. */
  resolve?: ResolveMap;
  /**
   * Origins the operator configured (`host:port` as resolveKey makes them, e.g. a provider's base
   * URL pointing at an internal gateway): resolved as usual, but their addresses may be private.
   */
  trusted?: ReadonlySet<string>;
  /** Name resolution; the system's by default (tests pass their own to play a rebinding DNS). */
  lookup?: (host: string) => Promise<string[]>;
}

const systemLookup = async (host: string) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The one guarded client for everything that leaves the process: provider calls, URL checks,
 * webhooks. The address is decided at connect time, by this client: an operator-mapped host goes
 * where it is mapped; any other name is resolved and refused if any of its addresses is not public;
 * the connection then goes to the address checked, so a DNS answer that changes between a check
 * and the connection (rebinding) cannot send it elsewhere. Timeouts, a body cap, redirects
 * followed one checked hop at a time, an honest user agent.
 */
export function createOutbound(options: OutboundOptions): Outbound {
  const resolveMap = options.resolve ?? new Map();
  const trusted = options.trusted ?? new Set<string>();
  const lookup = options.lookup ?? systemLookup;
  const base = buildConnector({ timeout: 10_000 });

  async function addressFor(hostname: string, port: number): Promise<string> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const mapped = resolveMap.get(resolveKey(host, port));
    if (mapped) return mapped;
    const operatorSaid = trusted.has(resolveKey(host, port));
    if (isIP(host)) {
      if (!operatorSaid && !isPublicAddress(host)) throw new OutboundError('blocked_address', `${host} is not a public address`);
      return host;
    }
    let addresses: string[];
    try {
      addresses = await lookup(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') throw new OutboundError('dns_nxdomain', `${host} does not exist (DNS: ${code})`);
      throw new OutboundError('dns_temporary', `${host} could not be resolved now (DNS: ${code ?? (error as Error).message})`);
    }
    if (addresses.length === 0) throw new OutboundError('dns_nxdomain', `${host} has no address`);
    const blocked = operatorSaid ? undefined : addresses.find((a) => !isPublicAddress(a));
    if (blocked) throw new OutboundError('blocked_address', `${host} resolves to ${blocked}, which is not a public address`);
    return addresses[0]!;
  }

  const agent = new Agent({
    connect(opts, callback) {
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      addressFor(opts.hostname, port).then(
        (address) => base({ ...opts, hostname: address, servername: opts.servername ?? (isIP(opts.hostname) ? undefined : opts.hostname) }, callback),
        (error: Error) => callback(error, null),
      );
    },
  });

  async function once(url: URL, init: OutboundRequest, signal: AbortSignal): Promise<Omit<OutboundResponse, 'url' | 'redirects'>> {
    const maxBytes = init.maxBytes ?? 1024 * 1024;
    try {
      const response = await request(url, {
        dispatcher: agent,
        method: init.method ?? 'GET',
        headers: { 'user-agent': options.userAgent, ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
        signal,
        headersTimeout: init.timeoutMs ?? 10_000,
        bodyTimeout: init.timeoutMs ?? 10_000,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        if (size + buffer.length > maxBytes) {
          chunks.push(buffer.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          response.body.destroy();
          break;
        }
        chunks.push(buffer);
        size += buffer.length;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      return { status: response.statusCode, headers, body: Buffer.concat(chunks), truncated };
    } catch (error) {
      throw classify(error, signal);
    }
  }

  return {
    async request(raw, init = {}) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new OutboundError('bad_url', `"${raw}" is not an absolute URL`);
      }
      const signal = AbortSignal.timeout(init.timeoutMs ?? 10_000);
      const redirects: { status: number; location: string }[] = [];
      for (;;) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('bad_url', `${url.protocol} URLs are not fetched`);
        const response = await once(url, init, signal);
        const location = response.headers.location;
        const max = init.maxRedirects ?? 0;
        if (response.status < 300 || response.status > 399 || location === undefined || max === 0) return { ...response, url: url.href, redirects };
        if (redirects.length >= max) throw new OutboundError('too_many_redirects', `more than ${max} redirects from ${raw}`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new OutboundError('bad_url', `redirect to "${location}" is not a URL`);
        }
        redirects.push({ status: response.status, location: next.href });
        url = next;
      }
    },
    async vet(raw) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new OutboundError('bad_url', `"${raw}" is not an absolute URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('bad_url', `${url.protocol} URLs are not fetched`);
      await addressFor(url.hostname, Number(url.port) || (url.protocol === 'https:' ? 443 : 80));
    },
    close: () => agent.close(),
  };
}

function classify(error: unknown, signal: AbortSignal): Error {
  if (error instanceof OutboundError) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundError) return cause;
  const code = String((error as { code?: unknown }).code ?? (cause as { code?: unknown } | undefined)?.code ?? '');
  const message = (error as Error).message ?? String(error);
  if (signal.aborted || code.includes('TIMEOUT') || (error as Error).name === 'AbortError') return new OutboundError('timeout', `timed out: ${message}`);
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'UND_ERR_SOCKET') {
    return new OutboundError('refused', `connection failed: ${code}`);
  }
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return new OutboundError('tls', `TLS failed: ${code}`);
  return new OutboundError('network', message);
}
