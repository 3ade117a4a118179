import { BadRequestError } from '../http/errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** For commands: an id given on the command line, checked before it reaches the database. */
export function uuidFlag(name: string, value: string): string;
export function uuidFlag(name: string, value: string | undefined): string | undefined;
export function uuidFlag(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!UUID.test(value)) throw new BadRequestError(`${name} must be a UUID, got "${value}"`, { [name]: 'must be a UUID' });
  return value.toLowerCase();
}

/** For commands: a flag's value as a boolean, from `true`/`false`. */
export function booleanFlag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new BadRequestError(`--${name} must be true or false, got "${value}"`, { [name]: 'must be true or false' });
}

/** For commands: a flag's value as a number. */
export function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) {
    throw new BadRequestError(`--${name} must be a number, got "${value}"`, { [name]: 'must be a number' });
  }
  return n;
}

