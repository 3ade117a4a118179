/** Reading provider replies, which are untyped JSON: small guards every adapter uses. */

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An array, or an empty one for anything else. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A non-blank string, trimmed. */
export function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
