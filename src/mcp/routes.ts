import type { FastifyInstance } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { principalOf } from '../auth/auth-plugin.ts';
import { createMcpServer } from './mcp-server.ts';
import type { ToolDeps } from './tools.ts';

/**
 * The MCP server over streamable HTTP at `/mcp` (operations.md section 9), stateless: every POST
 * is one JSON-RPC exchange with a server made for its key, answered as JSON. It sits behind the
 * auth hook (401 for a missing or unknown key, 403 for a plan without API access or a key with
 * neither `mcp` nor `mcp:write`) and the per-key rate limit, like every authenticated endpoint.
 * GET (a server-sent stream) and DELETE (a session) have nothing to do without sessions: 405.
 */
export async function mcpRoutes(app: FastifyInstance, deps: ToolDeps): Promise<void> {
  app.post(
    '/mcp',
    { config: { anyScope: ['mcp', 'mcp:write'], ownInputChecks: true }, schema: { summary: 'The MCP tool server (streamable HTTP, JSON-RPC)', tags: ['mcp'], hide: true } },
    async (request, reply) => {
      const server = createMcpServer(deps, principalOf(request));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { anyScope: ['mcp', 'mcp:write'] },
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply.code(405).header('allow', 'POST').send({ error: { code: 'bad_request', message: 'this MCP server is stateless: POST JSON-RPC messages to /mcp' } }),
    });
  }
}
