import { CRAWLERS, PLATFORMS, REGISTRY_SCHEMA_VERSION, ROBOTS_TXT_TOKENS } from './crawler-registry.ts';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The registry's human-readable page (the `source` of bots.json). */
export function renderBotsPage(jsonUrl: string): string {
  const rows = [...CRAWLERS]
    .sort((a, b) => (a.platformLabel + a.name < b.platformLabel + b.name ? -1 : 1))
    .map((c) => `<tr><td>${escape(c.name)}</td><td>${escape(c.platformLabel)}</td><td><code>${escape(c.matchCase ? c.name : c.token)}</code>${c.matchCase ? ' (this case only)' : ''}</td><td>${escape(c.purpose)}</td></tr>`)
    .join('\n');
  const robotsOnly = ROBOTS_TXT_TOKENS.map((t) => `<li><code>${escape(t.name)}</code> (${escape(t.platformLabel)})</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>AI crawler registry</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #ddd}code{font-size:90%}</style>
</head>
<body>
<h1>AI crawler registry</h1>
<p>${CRAWLERS.length} AI crawlers and agents across ${Object.keys(PLATFORMS).length} platforms. A user agent is matched by its
lowercase token, on word boundaries. Purpose: <em>training</em> (collects training data), <em>search</em> (indexes for AI
search), <em>user</em> (fetches a page a person asked about), <em>agent</em> (acts on a person's behalf).
The agent list is <a href="https://github.com/ai-robots-txt/ai.robots.txt">ai.robots.txt</a>'s (MIT), with our platforms
and purposes. Machine-readable: <a href="${escape(jsonUrl)}">${escape(jsonUrl)}</a> (schema version ${REGISTRY_SCHEMA_VERSION}).</p>
<table>
<thead><tr><th>Bot</th><th>Platform</th><th>Token</th><th>Purpose</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<h2>robots.txt tokens only</h2>
<p>No crawler sends these in its user agent; they only tell an operator's crawlers what a site allows. Never matched.</p>
<ul>
${robotsOnly}
</ul>
</body>
</html>
`;
}
