/**
 * VADER's lexicon was built for social media posts; answers about software vendors use words it
 * reads wrongly or not at all. Before scoring, such words are rewritten to a word VADER knows with
 * the valence the phrase has in this domain, so VADER's own rules (negation, boosters, "but") still
 * apply to them: "not buggy" is read as "not poor". The valences are VADER's: poor -2.1,
 * downside -1.0, avoid -1.2, good 1.9, excellent 2.7, recommend 1.5; "service", "covers",
 * "policy", "such as" and "entry" are not in its lexicon (neutral).
 *
 * The list is data, chosen from the domain's vocabulary (review sites, vendor comparisons), not
 * fitted to single sentences; src/sentiment/agreement.test.ts measures it on a held-out set.
 */
const RULES: readonly [RegExp, string][] = [
  // Product nouns VADER counts as praise: "help desk" (help 1.7), "support" (1.7), "free plan" (free 2.3),
  // "uptime guarantee" (1.0), the preposition "like" (1.5) in "tools like Acme".
  [/\bhelp\s*desks?\b/giu, 'service'],
  [/\bsupport(?:s|ed|ing)?\b/giu, 'covers'],
  [/\bfree(?=[\s-]+(?:plans?|trials?|tiers?|versions?|editions?|accounts?|options?|forever)\b)/giu, 'entry'],
  [/(?<=\S\s+)Free\b/gu, 'entry'],
  [/\bguarantees?\b/giu, 'policy'],
  [/\blike(?=\s+(?:Brand|\p{Lu}))/gu, 'such as'],
  // Advice, by the verbs answers use for it.
  [/\b(?:steer\s+clear\s+of|stay\s+away\s+from|look\s+(?:elsewhere|beyond)|skip)\b/giu, 'avoid'],
  [/\b(?:consider|check\s+out|try|go\s+with|choose|pick|opt\s+for)(?=\s+Brand\b)/giu, 'recommend'],
  [/\bhard\s+to\s+beat\b/giu, 'excellent'],
  // Plainly bad in a product review.
  [/\b(?:buggy|glitchy|crash(?:es|ed|ing)?|outages?|downtime|unreliable|unresponsive|laggy|overpriced|unusable|breach(?:es)?|dealbreakers?|deal-breakers?)\b/giu, 'poor'],
  // Drawbacks, milder.
  [/\b(?:expensive|pricey|pricier|costly|steep|steeper|lacks?|lacking|overkill|dated|outdated|rudimentary|clunky|cluttered|cumbersome|convoluted|tedious|bloated|drawbacks?|limitations?|slow|slower)\b/giu, 'downside'],
  // Praise VADER does not know.
  [/\b(?:intuitive|seamless|polished|reliable|dependable|affordable|inexpensive|budget-friendly|cost-effective|user-friendly|easy-to-use|go-to|standout|outperforms?|beats?|responsive|scalable|versatile|thorough|well-organi[sz]ed)\b/giu, 'good'],
];

/** The text with this domain's words rewritten for VADER (subject names are masked before). */
export function rewriteDomainWords(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
