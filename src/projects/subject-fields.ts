import { BadRequestError } from '../http/errors.ts';
import { normalizeDomain } from './normalize-domain.ts';

/** What a brand and a competitor have alike: a name, a domain, a chart colour, other names. */
export interface SubjectInput {
  name: string;
  domain: string;
  color?: string | undefined;
  aliases?: readonly string[] | undefined;
}

export interface SubjectFields {
  name: string;
  domain: string;
  color: string | null;
  aliases: string[];
}

const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export function validateSubject(input: SubjectInput): SubjectFields {
  const name = input.name.trim();
  if (name === '' || name.length > 200) {
    throw new BadRequestError('name must be 1 to 200 characters', { name: 'must be 1 to 200 characters' });
  }
  const domain = normalizeDomain(input.domain);
  const color = checkColor(input.color);
  const aliases: string[] = [];
  for (const raw of input.aliases ?? []) {
    const alias = raw.trim();
    if (alias === '' || alias.length > 200) {
      throw new BadRequestError('each alias must be 1 to 200 characters', { aliases: 'must be 1 to 200 characters each' });
    }
    if (!aliases.some((a) => a.toLowerCase() === alias.toLowerCase())) aliases.push(alias);
  }
  return { name, domain, color, aliases };
}

/** A chart colour as stored: `#rgb` or `#rrggbb`, lower-case; empty or absent is none (null). */
export function checkColor(given: string | null | undefined): string | null {
  const color = given?.trim() || null;
  if (color !== null && !COLOR.test(color)) {
    throw new BadRequestError(`color "${color}" is not a hex colour like #1f77b4`, { color: 'must be #rgb or #rrggbb' });
  }
  return color?.toLowerCase() ?? null;
}
