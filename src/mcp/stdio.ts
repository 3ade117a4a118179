import type { Kysely } from 'kysely';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { DB } from '../db/types.ts';
import { findPrincipal } from '../auth/find-principal.ts';
import { ForbiddenError, UnauthorizedError } from '../http/errors.ts';
import { createMcpServer } from './mcp-server.ts';
import type { ToolDeps } from './tools.ts';

/**
 * `sightline mcp`: the MCP server over standard input and output, for the key in SIGHTLINE_API_KEY
 * (checked as `/mcp` checks it: known and active, a plan with API access, `mcp` or `mcp:write`).
 * Runs until the client closes standard input.
 */
export async function serveMcpOverStdio(deps: ToolDeps & { db: Kysely<DB> }, apiKey: string | undefined): Promise<void> {
  if (!apiKey) throw new UnauthorizedError('set SIGHTLINE_API_KEY to a workspace API key with the mcp or mcp:write scope');
  const principal = await findPrincipal(deps.db, apiKey);
  if (!principal) throw new UnauthorizedError('unknown or revoked API key');
  if (!principal.apiAccess) throw new ForbiddenError("this workspace's plan has no API access; upgrade the plan to use the API");
  if (!principal.scopes.includes('mcp') && !principal.scopes.includes('mcp:write')) throw new ForbiddenError('this key lacks the `mcp` or `mcp:write` scope');
  const server = createMcpServer(deps, principal);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
