import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, beforeEach } from 'node:test';
import type { AddressInfo } from 'node:net';
import { createOutbound, type Outbound } from '../../src/outbound/outbound.ts';
import { parseResolveMap } from '../../src/outbound/resolve-map.ts';
import { ProviderError } from '../../src/sampling/providers/provider.ts';

/** A request the fake received, as the provider would see it. */
export interface SeenRequest {
  method: string;
  /** Path and query, e.g. `/v1/responses` or `/search.json?engine=google&q=...`. */
  url: string;
  headers: IncomingMessage['headers'];
  /** The body parsed as JSON, else the raw text ('' for none). */
  body: unknown;
}

/** What the fake answers: a status, a JSON body (or raw text), headers; or `hang` to never answer. */
export type FakeReply = { status?: number; json?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number } | 'hang' | 'reset';

export type FakeHandler = (request: SeenRequest) => FakeReply | Promise<FakeReply>;

/**
 * A local HTTP server speaking a provider's wire format, for adapter and sampling tests: the test
 * sets its handler (a queue of replies, or a function of the request) and reads what was sent. It
 * is reached as `http://<host>:<port>` through the guarded client with the host mapped
 * (SIGHTLINE_RESOLVE style), so tests go through the same outbound path as production and never
 * reach the internet.
 */
export interface FakeProvider {
  /** e.g. `http://openai.test:49152` */
  origin: string;
  host: string;
  port: number;
  /** `host:port:127.0.0.1`, for SIGHTLINE_RESOLVE. */
  resolveEntry: string;
  requests: SeenRequest[];
  /** Replies taken in order; when empty, `fallback` answers. */
  replies: FakeReply[];
  fallback: FakeHandler;
  /** A guarded client that reaches this fake (and nothing private besides). */
  outbound(): Outbound;
  close(): Promise<void>;
}

const noReply: FakeHandler = () => ({ status: 500, json: { error: { message: 'no reply queued' } } });

export async function startFakeProvider(host: string, fallback: FakeHandler = noReply): Promise<FakeProvider> {
  const fake = createFakeProvider(host, fallback);
  await fake.listen();
  return fake;
}

/**
 * For an adapter's test file: one fake for the file, listening before its tests, emptied (requests,
 * queued replies, the fallback) before each, closed after; and a guarded client that reaches it.
 * Both are returned at once and usable inside hooks and tests.
 */
export function useFakeProvider(host: string, fallback: FakeHandler = noReply): { fake: FakeProvider; outbound: Outbound } {
  const fake = createFakeProvider(host, fallback);
  let client: Outbound | undefined;
  const outbound: Outbound = {
    request: (url, init) => client!.request(url, init),
    vet: (url) => client!.vet(url),
    close: async () => undefined,
  };
  before(async () => {
    await fake.listen();
    client = fake.outbound();
  });
  after(async () => {
    await client?.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.replies.length = 0;
    fake.fallback = fallback;
  });
  return { fake, outbound };
}

/** The ProviderError a check fails with; the test fails if it does not fail so. */
export async function expectProviderError(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the check to fail');
}

function createFakeProvider(host: string, fallback: FakeHandler): FakeProvider & { listen(): Promise<void> } {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeProvider & { listen(): Promise<void> } = {
    origin: '',
    host,
    port: 0,
    resolveEntry: '',
    requests: [],
    replies: [],
    fallback,
    outbound: () => createOutbound({ userAgent: 'SightlineTest/1', resolve: parseResolveMap(fake.resolveEntry) }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      fake.port = (server.address() as AddressInfo).port;
      fake.origin = `http://${host}:${fake.port}`;
      fake.resolveEntry = `${host}:${fake.port}:127.0.0.1`;
    },
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw === '' ? '' : JSON.parse(raw);
    } catch {
      // kept as text
    }
    const seen: SeenRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
    fake.requests.push(seen);
    const reply = fake.replies.length > 0 ? fake.replies.shift()! : await fake.fallback(seen);
    if (reply === 'hang') return; // never answered: the client's time cap must end it
    if (reply === 'reset') {
      req.socket.destroy();
      return;
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    const text = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
    res.writeHead(reply.status ?? 200, { 'content-type': reply.text !== undefined ? 'text/plain' : 'application/json', ...reply.headers });
    res.end(text);
  }

  return fake;
}
