import { BadRequestError } from '../http/errors.ts';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A brand or competitor domain as the interface shows it: a bare host, lower case, no scheme, no
 * path, no port, no `www.`. Accepts what people paste (`https://www.Acme.com/pricing`).
 */
export function normalizeDomain(input: string, field = 'domain'): string {
  let host = input.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  host = host.split(/[/?#]/, 1)[0] ?? '';
  host = host.replace(/:\d+$/, '').replace(/\.$/, '');
  if (host.startsWith('www.')) host = host.slice(4);
  const labels = host.split('.');
  if (host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    throw new BadRequestError(`${field} "${input}" is not a domain name like acme.com`, {
      [field]: 'must be a domain name like acme.com',
    });
  }
  return host;
}
