/** Reading the service's answers in a benchmark: one GET that must answer 200, and one line saying what it held. */

export interface JsonReply {
  body: unknown;
  etag: string | null;
  ms: number;
}

/** GET a URL, fail loudly on anything but 200, and time it. */
export async function getJson(url: string, headers: Record<string, string>): Promise<JsonReply> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  const text = await res.text();
  const ms = Math.round((performance.now() - started) * 100) / 100;
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return { body: JSON.parse(text) as unknown, etag: res.headers.get('etag'), ms };
}

/** One line saying what a response held, so an empty or wrong answer is visible. */
export function summarise(body: unknown): string {
  const data = (body as { data?: Record<string, unknown> } | undefined)?.data;
  if (!data) return JSON.stringify(body ?? null).slice(0, 80);
  if (Array.isArray(data.series)) {
    const series = data.series as { sampleSize: number; visibility: number | null; citations: number }[];
    const n = series.reduce((a, s) => a + s.sampleSize, 0);
    const vis = series.filter((s) => s.visibility !== null).map((s) => s.visibility!);
    const avg = vis.reduce((a, v) => a + v, 0) / Math.max(1, vis.length);
    return `${series.length} points, ${n} ok runs, mean visibility ${avg.toFixed(1)}%, ${series.reduce((a, s) => a + s.citations, 0)} citations`;
  }
  if (Array.isArray(data.rows)) {
    const rows = data.rows as { name: string; visibility: number | null; sampleSize: number }[];
    return `${rows.length} rows over ${rows[0]?.sampleSize ?? 0} ok runs: ${rows.map((r) => `${r.name} ${r.visibility ?? '-'}%`).join(', ')}`;
  }
  if (Array.isArray(data.domains)) {
    const domains = data.domains as { domain: string; totalCount: number }[];
    return `${domains.length} domains, ${domains.reduce((a, d) => a + d.totalCount, 0)} citations, top ${domains[0]?.domain ?? '-'}`;
  }
  if (Array.isArray(data.projects)) return `${data.projects.length} projects`;
  return Object.keys(data).join(',');
}
