import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import { Value } from 'typebox/value';

import { AppError } from '../http/errors.ts';
import { unstorableFields } from '../http/storable-input.ts';
import type { Principal } from '../auth/find-principal.ts';
import { PROMPTS } from './prompts.ts';
import { TOOLS, type Tool, type ToolDeps } from './tools.ts';

export const SERVER_INFO = { name: 'sightline', version: '1.0.0' };

/** Whether a key may call a tool: `mcp` reads, `mcp:write` changes and spends (exact scopes, as the public interface has them). */
const allowed = (principal: Principal, tool: Tool) => principal.scopes.includes(tool.scope);

/** A tool's input schema as JSON Schema (the TypeBox schema the HTTP route validates with). */
const inputSchemaOf = (tool: Tool) => JSON.parse(JSON.stringify(tool.input)) as { type: 'object'; properties?: Record<string, unknown> };

/**
 * One MCP server for one caller (operations.md section 9): the tools of section 9 (tools.ts), all
 * listed to every key (a tool outside the key's scopes answers `forbidden`), whose results are the
 * HTTP endpoints' `data` objects, and prompt templates for the common questions
 * (prompts.ts). A tool's arguments are checked against its TypeBox schema (defaults applied, as
 * the HTTP routes do); a refusal is a tool error carrying the public interface's error body.
 * Writes with an idempotency key answer the first call's result again, changing nothing.
 */
export function createMcpServer(deps: ToolDeps, principal: Principal): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {}, prompts: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.scope === 'mcp:write' ? `${t.description} Needs a key with the mcp:write scope.` : t.description,
      inputSchema: inputSchemaOf(t),
      annotations: { title: t.title, ...t.annotations },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    if (!allowed(principal, tool)) return failure('forbidden', `this key lacks the \`${tool.scope}\` scope ${tool.name} needs`);
    const args = Value.Default(tool.input, structuredClone(request.params.arguments ?? {})) as Record<string, unknown>;
    if (!Value.Check(tool.input, args)) {
      const details = Object.fromEntries([...Value.Errors(tool.input, args)].slice(0, 20).map((e) => [e.instancePath.replace(/^\//, '') || '(arguments)', e.message]));
      return failure('bad_request', 'invalid arguments', details);
    }
    const unstorable = unstorableFields(args);
    if (Object.keys(unstorable).length > 0) return failure('bad_request', 'invalid arguments', unstorable);
    try {
      const key = typeof args.idempotencyKey === 'string' ? args.idempotencyKey : undefined;
      const data = key === undefined ? await tool.run({ deps, principal }, args) : await once(deps, principal, tool, key, () => tool.run({ deps, principal }, args));
      return { content: [{ type: 'text' as const, text: JSON.stringify(data) }], structuredContent: data as Record<string, unknown> };
    } catch (error) {
      if (error instanceof AppError) return failure(error.code, error.message, error.details);
      throw error;
    }
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: PROMPTS.map((p) => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const prompt = PROMPTS.find((p) => p.name === request.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    return { description: prompt.description, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(request.params.arguments ?? {}) } }] };
  });
  return server;
}

function failure(code: string, message: string, details?: Record<string, string>) {
  const body = { error: { code, message, ...(details ? { details } : {}) } };
  return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(body) }], structuredContent: body };
}

/** A write under an idempotency key: the first call's result is kept (per workspace and key) and answered again. */
async function once(deps: ToolDeps, principal: Principal, tool: Tool, key: string, run: () => Promise<unknown>): Promise<unknown> {
  const seen = await sql<{ result: unknown; tool: string }>`select result, tool from mcp_idempotency where workspace_id = ${principal.workspaceId} and key = ${key}`.execute(deps.db);
  if (seen.rows[0]) {
    if (seen.rows[0].tool !== tool.name) throw new AppError('conflict', `idempotency key ${key} was used for ${seen.rows[0].tool}`);
    return seen.rows[0].result;
  }
  const result = await run();
  await sql`insert into mcp_idempotency (workspace_id, key, tool, result) values (${principal.workspaceId}, ${key}, ${tool.name}, ${JSON.stringify(result)}::jsonb)
    on conflict (workspace_id, key) do nothing`.execute(deps.db);
  return result;
}

const INSTRUCTIONS =
  'Sightline measures how often AI answer engines (ChatGPT, Perplexity, Gemini, Google AI Overviews and AI Mode, Claude, Copilot) name a brand and its rivals. ' +
  'Call list_projects first. Rates come with their sample size and a Wilson 95% interval; a rate over fewer than 5 runs is withheld, never 0. ' +
  'Only statistically real changes are reported (get_changes). Writes need an mcp:write key; sample_now is a dry run unless dryRun is false.';


