import type { ProviderSettings } from './provider.ts';

export interface ProviderView {
  engine: string;
  provider: string;
  /** Whether its key is set: an engine without one is skipped, never charged. */
  configured: boolean;
  baseUrl: string;
  model: string;
}

/** `providers list`: each engine's provider as configured, never its key. */
export function listProviders(providers: readonly ProviderSettings[]): ProviderView[] {
  return providers.map((p) => ({ engine: p.engine, provider: p.provider, configured: p.apiKey !== undefined, baseUrl: p.baseUrl, model: p.model }));
}
