import type { ProviderSettings } from './provider.ts';

export interface ProviderView {
  engine: string;
  provider: string;
  /** Whether its key is set: an engine without one is skipped, never charged. */
  configured: boolean;
  baseUrl: string;
  model: string;
}

/** `providers list`: each engine's provider as configured, never its key (nor one written into its base URL). */
export function listProviders(providers: readonly ProviderSettings[]): ProviderView[] {
  return providers.map((p) => ({ engine: p.engine, provider: p.provider, configured: p.apiKey !== undefined, baseUrl: shownUrl(p.baseUrl), model: p.model }));
}

/** A base URL without the credentials or query a gateway's address may carry; as configured otherwise. */
function shownUrl(configured: string): string {
  const url = URL.parse(configured);
  if (!url || (url.username === '' && url.password === '' && url.search === '')) return configured;
  url.username = '';
  url.password = '';
  url.search = '';
  return url.pathname === '/' && !configured.endsWith('/') ? url.origin : url.href;
}
