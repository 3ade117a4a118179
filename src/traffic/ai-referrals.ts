import { PLATFORMS } from './crawler-registry.ts';

/**
 * AI referral detection, as data. A visit is AI-referred when its referrer is an AI assistant (by
 * host, by host + path, or by Android app id), or when its landing URL carries a parameter that an
 * AI product appends to the links it cites (`utm_source=chatgpt.com`, `referrer=grok.com`, ...).
 * Anything else is not AI (the default). Decisions: README.md.
 */

/**
 * Assistant hosts -> platform. Matched exactly, after lower-casing and dropping one leading `www.`:
 * subdomains are NOT included, because the operators' other hosts (openai.com, platform.openai.com,
 * docs.perplexity.ai, deepseek.com, mistral.ai) are product and docs sites, not assistant answers.
 * Google, Bing and DuckDuckGo search referrers are not here: AI Overviews / Copilot-in-Bing clicks
 * cannot be told apart from ordinary search clicks by referrer.
 */
export const AI_REFERRER_HOSTS: Readonly<Record<string, string>> = Object.freeze({
  'chatgpt.com': 'openai',
  'chat.openai.com': 'openai',
  'labs.openai.com': 'openai',
  'claude.ai': 'anthropic',
  'perplexity.ai': 'perplexity',
  'gemini.google.com': 'google',
  'bard.google.com': 'google',
  'notebooklm.google.com': 'google',
  'copilot.microsoft.com': 'microsoft',
  'copilot.com': 'microsoft', // Copilot tags its links utm_source=copilot.com
  'm365.cloud.microsoft': 'microsoft',
  'meta.ai': 'meta',
  'l.meta.ai': 'meta',
  'chat.mistral.ai': 'mistral',
  'chat.deepseek.com': 'deepseek',
  'grok.com': 'xai',
  'duck.ai': 'duckduckgo', // duckduckgo.com itself is search
  'you.com': 'you',
  'chat.qwen.ai': 'alibaba',
  'chatglm.cn': 'zhipu',
  'yiyan.baidu.com': 'baidu',
  'ai.baidu.com': 'baidu',
  'character.ai': 'character',
  'beta.character.ai': 'character',
  'poe.com': 'poe',
  'iask.ai': 'iask',
  'app.jasper.ai': 'jasper',
  'app.writesonic.com': 'writesonic',
  'chatplus.com': 'chatplus',
  'chat-gpt.org': 'chatplus',
});

/** Assistants that live under a path of a non-AI host (x.com alone is social). */
export const AI_REFERRER_PATHS: readonly { host: string; pathPrefix: string; platform: string }[] = Object.freeze([
  { host: 'x.com', pathPrefix: '/i/grok', platform: 'xai' },
]);

/** Android app ids, as sent in `android-app://<id>` referrers. */
export const AI_REFERRER_APPS: Readonly<Record<string, string>> = Object.freeze({
  'com.openai.chatgpt': 'openai',
  'com.anthropic.claude': 'anthropic',
});

/**
 * `utm_source` values AI products put on the links they cite -> platform. Compared whole (after
 * decoding, trimming and lower-casing), never as substrings: a site's own `utm_source=gemini.studio`
 * campaign is not Gemini. A value that is itself an AI referrer (`utm_source=claude.ai`) also counts.
 */
export const AI_UTM_SOURCES: Readonly<Record<string, string>> = Object.freeze({
  'chatgpt.com': 'openai',
  openai: 'openai', // OpenAI API web_search citations
  'copilot.com': 'microsoft',
  gemini: 'google',
  perplexity: 'perplexity',
});

/**
 * Landing-URL parameters that can name the referring assistant. `referrer=grok.com` is what Grok
 * appends; its value is read like a referrer.
 */
export const AI_LANDING_PARAMS: readonly string[] = Object.freeze(['utm_source', 'referrer']);

export interface AiReferral {
  platform: string;
  platformLabel: string;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//;

function referral(platform: string | undefined): AiReferral | undefined {
  if (platform === undefined) return undefined;
  return { platform, platformLabel: PLATFORMS[platform] ?? platform };
}

/** The platform a referrer (full URL, scheme-less `host/path`, bare host or app URI) points to. */
function referrerPlatform(raw: string): string | undefined {
  let rest = raw.trim().toLowerCase();
  const scheme = SCHEME.exec(rest);
  if (scheme !== null) rest = rest.slice(scheme[0].length);
  else if (rest.startsWith('//')) rest = rest.slice(2); // protocol-relative
  const end = rest.search(/[/?#\\]/);
  let host = end === -1 ? rest : rest.slice(0, end);
  const path = end === -1 ? '' : rest.slice(end);
  if (scheme?.[1] === 'android-app') return Object.hasOwn(AI_REFERRER_APPS, host) ? AI_REFERRER_APPS[host] : undefined;
  host = host.slice(host.lastIndexOf('@') + 1).replace(/:\d*$/, '').replace(/\.$/, '');
  if (host.startsWith('www.')) host = host.slice(4);
  if (Object.hasOwn(AI_REFERRER_HOSTS, host)) return AI_REFERRER_HOSTS[host];
  for (const entry of AI_REFERRER_PATHS) {
    if (host !== entry.host || !path.startsWith(entry.pathPrefix)) continue;
    const next = path.charAt(entry.pathPrefix.length);
    if (next === '' || next === '/' || next === '?' || next === '#') return entry.platform;
  }
  return undefined;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s; // malformed percent-encoding: compare the raw text
  }
}

/** The platform named by the landing URL's query (full URL or path; the fragment is ignored). */
function landingPlatform(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q === -1) return undefined;
  const hash = url.indexOf('#', q);
  const query = hash === -1 ? url.slice(q + 1) : url.slice(q + 1, hash);
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = decode(pair.slice(0, eq)).trim().toLowerCase();
    if (!AI_LANDING_PARAMS.includes(name)) continue;
    const value = decode(pair.slice(eq + 1)).trim().toLowerCase();
    if (value === '') continue;
    const platform = name === 'utm_source' && Object.hasOwn(AI_UTM_SOURCES, value) ? AI_UTM_SOURCES[value] : referrerPlatform(value);
    if (platform !== undefined) return platform;
  }
  return undefined;
}

/**
 * The AI assistant a visit came from, or undefined when it is not an AI referral. The referrer is
 * checked first, then the landing URL (ChatGPT may send no referrer but tags its links). Accepts
 * anything, including junk, and never throws.
 */
export function classifyReferral(referrer: string | null | undefined, landingUrl?: string | null): AiReferral | undefined {
  if (typeof referrer === 'string' && referrer !== '') {
    const platform = referrerPlatform(referrer);
    if (platform !== undefined) return referral(platform);
  }
  if (typeof landingUrl === 'string' && landingUrl !== '') return referral(landingPlatform(landingUrl));
  return undefined;
}
