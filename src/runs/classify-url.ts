import { getDomain } from 'tldts';
import { FORUM_HOSTS, INSTITUTIONAL_SUFFIXES, NEWS_HOSTS, REVIEW_HOSTS, SOURCE_HOSTS, VIDEO_HOSTS } from './source-hosts.ts';
import type { ArticleType, SourceType } from './vocabulary.ts';

/** The registrable domain of a host (`docs.acme.co.uk` -> `acme.co.uk`); the host itself for an IP or unknown suffix. */
export function registrableDomain(host: string): string {
  const lower = host.toLowerCase().replace(/\.$/, '');
  return getDomain(lower, { allowPrivateDomains: false }) ?? lower;
}

/** Whether `host` is `domain` or one of its subdomains. */
export function hostIsUnder(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

const onList = (domain: string, list: readonly string[]) => list.includes(domain);

/** What kind of page a URL is, from its host and path (first rule that matches wins). */
export function classifyArticleType(href: string): ArticleType {
  const url = new URL(href);
  const host = url.hostname.toLowerCase();
  const domain = registrableDomain(host);
  const path = decodeSafe(url.pathname).toLowerCase();
  if (onList(domain, VIDEO_HOSTS) || /(^|\/)(video|videos|watch)(\/|$)/.test(path)) return 'video';
  if (onList(domain, FORUM_HOSTS) || /^(forum|forums|community|discuss)\./.test(host) || /(^|\/)(forum|forums|community|discussions?|threads?)(\/|$)/.test(path)) {
    return 'forum';
  }
  if (onList(domain, REVIEW_HOSTS) || /(^|[/-])reviews?([/-]|$)/.test(path)) return 'review';
  if (/(^|[/-])(vs|versus|compare|comparison|alternatives?)([/-]|$)/.test(path)) return 'comparison';
  if (/(^|[/-])(best|top)-|(^|[/-])\d+-(best|top)([/-]|$)|(^|[/-])top-\d+/.test(path)) return 'listicle';
  if (/^(docs|developer|developers|dev|help|support|kb|learn)\./.test(host) || /(^|\/)(docs|documentation|api|guides?|help|kb|knowledge-base|manual|reference)(\/|$)/.test(path)) {
    return 'docs';
  }
  if (onList(domain, NEWS_HOSTS) || onList(domain, SOURCE_HOSTS.editorial) || /^news\./.test(host) || /(^|\/)(news|press|press-releases?)(\/|$)/.test(path)) {
    return 'news';
  }
  if (/^blog\./.test(host) || /(^|\/)(blog|blogs|posts?|articles?)(\/|$)/.test(path) || domain === 'medium.com' || domain === 'substack.com') {
    return 'blog';
  }
  if (path === '/' || path === '' || /^\/(index\.html?)?$/.test(path) || /^\/[a-z]{2}(-[a-z]{2})?\/?$/.test(path)) return 'homepage';
  return 'other';
}

/**
 * A cited domain's editorial relationship to the brand: the brand's own, a tracked competitor's,
 * or by the host lists; `other` when nothing says.
 */
export function classifySourceType(domain: string, brandDomain: string, competitorDomains: readonly string[]): SourceType {
  if (domain === registrableDomain(brandDomain) || hostIsUnder(domain, brandDomain)) return 'owned';
  if (competitorDomains.some((c) => domain === registrableDomain(c) || hostIsUnder(domain, c))) return 'competitor';
  for (const type of ['review', 'ugc', 'social', 'editorial', 'institutional', 'corporate'] as const) {
    if (onList(domain, SOURCE_HOSTS[type])) return type;
  }
  if (INSTITUTIONAL_SUFFIXES.some((s) => `.${domain}`.endsWith(s))) return 'institutional';
  return 'other';
}

function decodeSafe(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
