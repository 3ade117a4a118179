export const SCOPES = ['read', 'ingest', 'mcp', 'mcp:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Whether a key holding `granted` may call an endpoint that needs `required`. Exact matches only:
 * no scope implies another (`mcp:write` is not `read`), and anything unrecognised is denied.
 */
export function matchesScope(granted: readonly string[], required: Scope | undefined): boolean {
  if (required === undefined || !isScope(required)) return false;
  return granted.includes(required);
}
