import type { FastifyRequest } from 'fastify';

/** Whether the request's Accept-Encoding takes `coding` (listed, and not with `q=0`). */
export function acceptsEncoding(request: FastifyRequest, coding: string): boolean {
  return String(request.headers['accept-encoding'] ?? '')
    .split(',')
    .some((part) => {
      const [token, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return token === coding && (q === undefined || Number(q.slice(2)) > 0);
    });
}

/** Brotli where the client takes it, else gzip, else nothing. */
export function preferredEncoding(request: FastifyRequest): 'br' | 'gzip' | undefined {
  return (['br', 'gzip'] as const).find((coding) => acceptsEncoding(request, coding));
}
