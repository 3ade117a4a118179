import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'sl_';
/** How much of a secret is kept in clear, to tell keys apart in listings: `sl_` and 8 characters. */
const VISIBLE_LENGTH = KEY_PREFIX.length + 8;

export interface NewSecret {
  /** Shown once to the person creating the key, never stored. */
  secret: string;
  prefix: string;
  hash: string;
}

/** A 256-bit random secret with a readable prefix: `sl_` + 43 base64url characters. */
export function generateSecret(): NewSecret {
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, VISIBLE_LENGTH), hash: hashSecret(secret) };
}

/**
 * SHA-256 is enough for a 256-bit random secret (no dictionary to guess from); keys are found by
 * this hash through a unique index, so no secret is ever compared in clear.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A well-formed secret's shape; anything else is rejected before touching the database. */
export function looksLikeSecret(value: string): boolean {
  return /^sl_[A-Za-z0-9_-]{43}$/.test(value);
}
