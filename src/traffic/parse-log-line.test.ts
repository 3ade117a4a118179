import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseLogLine, type LogEntry } from './parse-log-line.ts';

// ---------------------------------------------------------------------------------------------
// The real corpus (test/fixtures/logs, a copy of the project's shared log corpus; see its SOURCES.md):
// every file, with its manifest where it has one.

const CORPUS = new URL('../../test/fixtures/logs/', import.meta.url);

function corpusLines(file: string): string[] {
  const lines = readFileSync(new URL(file, CORPUS), 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Manifest rows keyed by line number; every column joined, for looking up what a row says. */
function manifest(file: string): Map<number, Record<string, string>> {
  const [header, ...rows] = corpusLines(file);
  const columns = header!.split('\t');
  const byLine = new Map<number, Record<string, string>>();
  for (const row of rows) {
    const cells = row.split('\t');
    const record = Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? '']));
    byLine.set(Number(record.line), record);
  }
  return byLine;
}

function parsed(line: string | undefined): LogEntry {
  assert.ok(line !== undefined, 'no such line');
  const entry = parseLogLine(line);
  assert.ok(entry, `did not parse: ${line.slice(0, 200)}`);
  return entry;
}

function iso(entry: LogEntry): string | undefined {
  return entry.at?.toISOString();
}

/** The invariants every result holds, whatever the input. */
function assertWellTyped(entry: LogEntry | undefined): void {
  if (entry === undefined) return;
  assert.ok(entry.format === 'combined' || entry.format === 'caddy');
  assert.ok(entry.at === undefined || (entry.at instanceof Date && Number.isFinite(entry.at.getTime())));
  for (const key of ['method', 'host', 'target', 'clientIp'] as const) {
    const value = entry[key];
    assert.ok(value === undefined || (typeof value === 'string' && value.length > 0), key);
  }
  assert.ok(entry.status === undefined || (Number.isInteger(entry.status) && entry.status >= 0 && entry.status <= 999));
  assert.equal(typeof entry.userAgent, 'string');
  assert.equal(typeof entry.referrer, 'string');
  assert.notEqual(entry.userAgent, '-');
  assert.notEqual(entry.referrer, '-');
  assert.ok(entry.clientIp === undefined || isIP(entry.clientIp) !== 0, entry.clientIp);
  assert.ok(entry.method === undefined || /^[A-Z][A-Z0-9_-]*$/.test(entry.method) || entry.format === 'caddy');
  for (const value of [entry.method, entry.host, entry.target, entry.userAgent, entry.referrer]) {
    if (value === undefined) continue;
    assert.ok(value.isWellFormed() && !value.includes('\0'), 'storable text');
  }
  assert.ok(entry.host === undefined || entry.host === entry.host.toLowerCase());
}

const COMBINED = 'combined_real.log';
const combined = corpusLines(COMBINED);
const combinedManifest = manifest('combined_real.manifest.tsv');

/**
 * Lines of combined_real.log that are not either grammar. SOURCES.md lists them as "non-combined/junk";
 * the manifest row of each says why (checked below, so this list cannot drift from the manifest).
 */
const COMBINED_REJECTED = new Map<number, RegExp>([
  [1610, /line2-missing-ident-and-user-fields\(malformed\)/],
  [1619, /missing-ident\(line8\)/],
  [1620, /nginx-error-log-line\(line9/],
  [1628, /apache-error-log-lines\(8,9\)/],
  [1629, /apache-error-log-lines\(8,9\)/],
  ...[1769, 1770, 1771, 1772, 1773, 1774].map((n) => [n, /NOT-combined/] as [number, RegExp]),
  [1804, /NOT combined/],
  [1805, /NOT combined/],
]);

/**
 * An independent reading of the plain lines (no backslash escapes, an ordinary request line): a
 * regular expression the parser does not use, and the CLF time through an ISO string.
 */
const ORACLE =
  /^(?:([\w.-]+(?::\d+)?) )?(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})\] "([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3}) (?:\d+|-)(?: "([^"]*)" "([^"]*)")?(?: .*)?$/;
const MONTH_NUMBER = 'JanFebMarAprMayJunJulAugSepOctNovDec';

describe('the real corpus', () => {
  test('combined_real.log: every line but the documented non-grammar ones parses', () => {
    assert.equal(combined.length, 1807);
    for (const [n, reason] of COMBINED_REJECTED) {
      const row = combinedManifest.get(n);
      assert.ok(row, `manifest row ${n}`);
      assert.match(Object.values(row).join('\t'), reason, `manifest line ${n}`);
    }
    // Conversely: each manifest row that says its line is not combined is in the rejected list.
    for (const [n, row] of combinedManifest) {
      if (/NOT[- ]combined/.test(Object.values(row).join('\t'))) assert.ok(COMBINED_REJECTED.has(n), `line ${n}`);
    }
    combined.forEach((line, i) => {
      const n = i + 1;
      const entry = parseLogLine(line);
      assertWellTyped(entry);
      if (COMBINED_REJECTED.has(n)) assert.equal(entry, undefined, `line ${n} should not parse`);
      else assert.equal(entry?.format, 'combined', `line ${n} should parse: ${line.slice(0, 160)}`);
    });
  });

  test('combined_real.log: fields agree with an independent reading of every plain line', () => {
    let checked = 0;
    combined.forEach((line, i) => {
      if (line.includes('\\') || line.includes('| ')) return;
      const m = ORACLE.exec(line);
      if (m === null) return;
      checked++;
      const [, vhost, client, day, mon, year, time, offH, offM, method, target, status, referrer, userAgent] = m;
      const month = String(MONTH_NUMBER.indexOf(mon!) / 3 + 1).padStart(2, '0');
      const entry = parsed(line);
      const where = `line ${i + 1}`;
      assert.equal(iso(entry), new Date(`${year}-${month}-${day}T${time}${offH}:${offM}`).toISOString(), where);
      assert.equal(entry.method, method, where);
      assert.equal(entry.target, target, where);
      assert.equal(entry.status, Number(status), where);
      assert.equal(entry.referrer, referrer === undefined || referrer === '-' ? '' : referrer, where);
      assert.equal(entry.userAgent, userAgent === undefined || userAgent === '-' ? '' : userAgent, where);
      assert.equal(entry.host, vhost?.replace(/:\d+$/, '').toLowerCase(), where);
      assert.equal(entry.clientIp, isIP(client!) ? client : undefined, where);
    });
    assert.ok(checked > 1700, `only ${checked} lines were cross-checked`);
  });

  test('combined_real.log: the edge cases SOURCES.md indexes', () => {
    const line = (n: number) => parsed(combined[n - 1]);
    // 1201-1203: referer with CP1251 bytes written as \xHH: not UTF-8, so they stay written.
    assert.equal(line(1201).referrer, 'http://\\xe4\\xe5\\xe3\\xf2\\xff\\xf0\\xed\\xee\\xe5-\\xec\\xfb\\xeb\\xee.\\xf0\\xf4/');
    assert.equal(line(1204).target?.length, 595); // the longest URI in the dataset
    // 1205-1604: nginx with a trailing "$http_x_forwarded_for".
    assert.equal(line(1205).clientIp, combined[1204]!.split(' ')[0]);
    assert.ok(line(1205).userAgent.length > 0 && !line(1205).userAgent.includes('"'));
    // 1608: empty request "-".
    assert.deepEqual({ ...line(1608), at: iso(line(1608)) }, {
      format: 'combined', at: '2013-02-15T06:00:31.000Z', method: undefined, host: undefined, target: undefined,
      status: 400, userAgent: '', referrer: '', clientIp: '10.112.81.15',
    });
    // vhost prefixes: bare, host:port, https vhost with odd referer and UA.
    assert.equal(line(1615).host, 'www.crowdsec.net');
    assert.equal(line(1615).clientIp, '192.168.1.1');
    assert.equal(line(1617).host, 'www.crowdsec11.net');
    assert.equal(line(1617).status, 301);
    assert.deepEqual([line(1627).host, line(1627).clientIp, line(1627).referrer, line(1627).userAgent], ['website.com', '1.2.3.4', 'abc.com', 'User-agent-string']);
    assert.equal(line(1627).at?.toISOString(), '2021-10-25T09:05:52.000Z');
    // 1618: auth user. 1626: common format.
    assert.equal(line(1618).target, '/api/login');
    assert.deepEqual([line(1626).status, line(1626).referrer, line(1626).userAgent], [200, '', '']);
    assert.equal(line(1626).at?.toISOString(), '2021-03-05T08:01:38.000Z');
    // 1630-1664: binary and non-HTTP request lines still count as lines, with no method or target.
    for (let n = 1630; n <= 1664; n++) {
      assert.equal(line(n).method, undefined, `line ${n}`);
      assert.equal(line(n).target, undefined, `line ${n}`);
      assert.equal(line(n).status, 400, `line ${n}`);
    }
    // 1653-1664: bunkerweb: vhost, client, then a request id before the user.
    assert.deepEqual([line(1653).host, line(1653).clientIp], ['example.com', '192.168.1.10']);
    // IPv6 clients, full and compressed; empty quoted referer and UA.
    assert.equal(line(1665).clientIp, '2001:0db8:85a3:0000:0000:8a2e:0370:7334');
    assert.equal(line(1665).method, 'HEAD');
    assert.deepEqual([line(1667).clientIp, line(1667).referrer, line(1667).userAgent], ['2001:db8:1:2:3:4:5:6', '', '']);
    assert.equal(line(1676).at?.toISOString(), '2025-07-25T14:25:21.000Z');
    // 1725: Apache-escaped backslash and quote inside the request.
    assert.equal(line(1725).target, '/sys/code/box.inc.php?config[\\"sipssys\\"]=http://cirt.net/rfiinc.txt?');
    // log4j payloads are just text.
    assert.match(line(1758).userAgent, /^\$\{jndi:ldap:/);
    assert.match(line(1760).referrer, /^\$\{jndi:/);
    // 1767 nginx \x5C and 1768 Apache \\ decode to the same target.
    assert.equal(line(1767).target, line(1768).target);
    assert.equal(line(1767).target, '/index.php?s=/Index/\\think\\app/invokefunction&function=call_user_func_array&vars[0]=md5&vars[1][]=HelloThinkPHP21');
    // 1779: common_vhost; 1782: raw non-UTF-8 bytes (read as U+FFFD) in the path.
    assert.deepEqual([line(1779).host, line(1779).userAgent], ['www.example.com', '']);
    assert.ok(line(1782).target?.startsWith('/\uFFFD'));
    assert.equal(line(1782).host, 'www.example.com');
    // 1790: size "-".
    assert.deepEqual([line(1790).method, line(1790).status], ['HEAD', 403]);
    // 1791: status 444.
    assert.equal(line(1791).status, 444);
    // Remote hosts that are not addresses: the line counts, the client IP is unknown.
    for (const n of [1792, 1794, 1798, 1802]) assert.equal(line(n).clientIp, undefined, `line ${n}`);
    assert.equal(line(1798).referrer, 'https://nas.local.com/');
    assert.equal(line(1799).clientIp, '10.83.0.2');
    assert.equal(line(1802).target, '/404.php');
    // 1806: Caddy v1 common log.
    assert.deepEqual([line(1806).status, line(1806).target, line(1806).userAgent], [304, '/', '']);
  });

  test('ai_lines_real.log: all 28 lines parse, with the crawler the manifest names in the user agent', () => {
    const lines = corpusLines('ai_lines_real.log');
    const rows = manifest('ai_lines_real.manifest.tsv');
    assert.equal(lines.length, 28);
    assert.equal(rows.size, 28);
    lines.forEach((line, i) => {
      const entry = parsed(line);
      assertWellTyped(entry);
      const row = rows.get(i + 1)!;
      assert.ok(entry.userAgent.includes(row.bot!), `line ${i + 1}: ${row.bot}`);
      assert.equal(entry.method, 'GET');
      assert.ok(entry.target?.startsWith('/'));
      assert.ok(entry.clientIp !== undefined);
    });
    const line = (n: number) => parsed(lines[n - 1]);
    // 1-4 end with two spaces.
    assert.equal(line(1).userAgent, 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)');
    assert.equal(line(1).at?.toISOString(), '2023-08-04T13:25:54.000Z');
    // 14: viewer prefix and a request line without HTTP/.
    assert.deepEqual([line(14).clientIp, line(14).target, line(14).status], ['54.85.7.119', '/robots.txt', 403]);
    assert.equal(line(14).at?.toISOString(), '2025-07-23T03:27:38.000Z');
    // 15-17: docker-compose prefix, two trailing fields.
    assert.deepEqual([line(15).clientIp, line(15).status, line(15).referrer], ['111.225.148.35', 200, '']);
    assert.match(line(15).userAgent, /Bytespider; https:\/\/zhanzhang\.toutiao\.com\/\)$/);
    // 18-27: self-referers.
    assert.equal(line(18).referrer, 'https://findmu.darcien.me/?page=997&type=Manga');
    assert.equal(line(18).target, '/?nsfw=1&page=997&type=Manga');
  });

  test('ai_lines_real.jsonl is empty', () => {
    assert.deepEqual(corpusLines('ai_lines_real.jsonl'), []);
  });

  const caddy = corpusLines('caddy_real.jsonl');

  test('caddy_real.jsonl: all 27 lines parse and agree with the JSON read directly', () => {
    const rows = manifest('caddy_real.manifest.tsv');
    assert.equal(caddy.length, 27);
    assert.equal(rows.size, 27);
    caddy.forEach((line, i) => {
      const where = `line ${i + 1}`;
      const entry = parsed(line);
      assertWellTyped(entry);
      const json = JSON.parse(line);
      const req = json.request;
      assert.equal(entry.format, 'caddy', where);
      assert.equal(entry.at?.getTime(), Math.round(json.ts * 1000), where);
      assert.equal(entry.method, req.method, where);
      assert.equal(entry.target, req.uri, where);
      assert.equal(entry.status, json.status, where);
      assert.equal(entry.userAgent, req.headers['User-Agent']?.[0] ?? '', where);
      assert.equal(entry.referrer, req.headers.Referer?.[0] ?? '', where);
      assert.equal(entry.host, req.host.replace(/:\d+$/, '').toLowerCase(), where);
      assert.equal(entry.clientIp, req.client_ip ?? req.remote_addr?.replace(/:\d+$/, ''), where);
    });
    const line = (n: number) => parsed(caddy[n - 1]);
    // What the manifest notes say about particular lines.
    for (let n = 1; n <= 7; n++) assert.equal(line(n).status, 0, `line ${n}: status 0`);
    assert.equal(line(8).status, 401);
    assert.match(rows.get(14)!.note!, /remote_ip 10\.5\.1\.1 != client_ip/);
    assert.equal(line(14).clientIp, '10.10.10.117');
    assert.equal(line(14).host, 'mirrors.tnonline.net');
    assert.equal(line(17).clientIp, '240e:1:1::1234');
    assert.equal(line(17).referrer, 'https://mirrors.tnonline.net/gentoo/gentoo-portage/app-dicts/aspell-lt/');
    assert.equal(line(12).referrer, 'https://example.com/beta/');
    // OLD schema: remote_addr "ip:port"; its common_log string says the same thing in the other grammar.
    assert.equal(line(22).clientIp, '66.214.199.16');
    assert.equal(line(22).status, 404);
    const common = parsed(JSON.parse(caddy[21]!).common_log);
    assert.deepEqual(
      [common.clientIp, common.method, common.target, common.status, Math.floor(line(22).at!.getTime() / 1000) * 1000],
      [line(22).clientIp, line(22).method, line(22).target, line(22).status, common.at!.getTime()],
    );
    assert.equal(line(23).clientIp, '198.255.245.152');
    assert.equal(line(22).userAgent, 'Mozilla/5.0 (iPhone; CPU OS 14_4_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/33.0  Mobile/15E148 Safari/605.1.15');
    assert.deepEqual([line(24).host, line(24).method, line(24).status], ['<host>', 'POST', 308]);
    assert.equal(line(26).target, '/__logcheck-20260806T221446Z');
  });

  test('caddy_real_mixed_docker.log: the 4 access lines parse behind "caddy  | ", the 35 runtime lines do not', () => {
    const lines = corpusLines('caddy_real_mixed_docker.log');
    assert.equal(lines.length, 39);
    const parsedLines = lines.map((l) => parseLogLine(l));
    parsedLines.forEach(assertWellTyped);
    const access = lines.flatMap((l, i) => (l.includes('"logger":"http.log.access"') ? [i] : []));
    assert.equal(access.length, 4);
    assert.equal(parsedLines.filter((e) => e !== undefined).length, 4);
    // caddy_real.jsonl lines 18-21 are these four with the prefix stripped (manifest note): same result.
    access.forEach((i, k) => {
      assert.ok(lines[i]!.startsWith('caddy  | '));
      assert.deepEqual(parsedLines[i], parsed(caddy[17 + k]));
    });
  });

  test('caddy_real_console_encoder.log: the console encoder lines parse, time taken from the head', () => {
    const lines = corpusLines('caddy_real_console_encoder.log');
    assert.equal(lines.length, 4);
    const entries = lines.map(parsed);
    entries.forEach(assertWellTyped);
    assert.deepEqual(
      entries.map((e) => [e.format, iso(e), e.method, e.host, e.target, e.status, e.userAgent, e.referrer, e.clientIp]),
      [
        ['caddy', '2023-12-08T20:24:51.157Z', 'GET', 'caddy.dyanim.com', '/', 308, 'curl/8.4.0', '', '127.0.0.1'],
        ['caddy', '2023-12-08T20:24:51.171Z', 'GET', 'caddy.dyanim.com', '/', 200, 'curl/8.4.0', '', '127.0.0.1'],
        ['caddy', '2023-12-08T20:36:08.656Z', 'GET', 'caddy.dyanim.com', '/', 308, 'curl/8.4.0', '', '127.0.0.1'],
        ['caddy', '2023-12-08T20:36:08.668Z', 'GET', 'caddy.dyanim.com', '/', 200, 'curl/8.4.0', '', '127.0.0.1'],
      ],
    );
  });

  test('caddy_fragments_incomplete.txt: no line of it parses (truncated fragments and notes)', () => {
    const lines = corpusLines('caddy_fragments_incomplete.txt');
    for (const line of lines) assert.equal(parseLogLine(line), undefined, line.slice(0, 80));
    // Nor does any prefix of the fragments, nor the meta-externalagent paste rejoined across its break.
    const fragments = lines.filter((l) => l.startsWith('{'));
    assert.equal(fragments.length, 3);
    for (const fragment of fragments) {
      for (let cut = 0; cut <= fragment.length; cut += 7) assert.equal(parseLogLine(fragment.slice(0, cut)), undefined);
    }
  });

  test('the parser is deterministic and ignores trailing whitespace and CR', () => {
    for (const line of [...combined.slice(1195, 1215), ...caddy]) {
      assert.deepEqual(parseLogLine(`${line}\r`), parseLogLine(line));
      assert.deepEqual(parseLogLine(`  ${line}   `), parseLogLine(line));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Each variant, written out

const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

function caddyLine(overrides: Record<string, unknown> = {}, request: Record<string, unknown> = {}): string {
  return JSON.stringify({
    level: 'info',
    ts: 1764590400.25,
    logger: 'http.log.access.log0',
    msg: 'handled request',
    request: {
      remote_ip: '203.0.113.9',
      remote_port: '51234',
      client_ip: '203.0.113.9',
      proto: 'HTTP/2.0',
      method: 'GET',
      host: 'acme.example',
      uri: '/pricing?utm_source=chatgpt.com',
      headers: { 'User-Agent': [GPTBOT], Referer: ['https://chatgpt.com/'] },
      ...request,
    },
    bytes_read: 0,
    user_id: '',
    duration: 0.0012,
    size: 512,
    status: 200,
    resp_headers: { 'Content-Type': ['text/html'] },
    ...overrides,
  });
}

describe('combined format variants', () => {
  const base = '203.0.113.9 - - [01/Dec/2025:12:00:00 +0100] "GET /pricing?utm_source=chatgpt.com HTTP/1.1" 200 512';

  test('combined, with every field', () => {
    const entry = parsed(`${base} "https://chatgpt.com/" "${GPTBOT}"`);
    assert.deepEqual({ ...entry, at: iso(entry) }, {
      format: 'combined',
      at: '2025-12-01T11:00:00.000Z',
      method: 'GET',
      host: undefined,
      target: '/pricing?utm_source=chatgpt.com',
      status: 200,
      userAgent: GPTBOT,
      referrer: 'https://chatgpt.com/',
      clientIp: '203.0.113.9',
    });
  });

  test('common format: no referer or user agent', () => {
    const entry = parsed(base);
    assert.equal(entry.userAgent, '');
    assert.equal(entry.referrer, '');
    assert.equal(entry.status, 200);
  });

  test('"-" and "" fields are empty; size "-"', () => {
    const entry = parsed(base.replace('200 512', '304 -') + ' "-" "-"');
    assert.deepEqual([entry.status, entry.referrer, entry.userAgent], [304, '', '']);
    assert.deepEqual([parsed(`${base} "" ""`).referrer, parsed(`${base} "" ""`).userAgent], ['', '']);
    assert.equal(parsed(`${base} "https://perplexity.ai/"`).referrer, 'https://perplexity.ai/');
  });

  test('IPv6 clients, full and compressed; a client that is no address gives no clientIp', () => {
    assert.equal(parsed(base.replace('203.0.113.9', '2001:db8::1')).clientIp, '2001:db8::1');
    assert.equal(parsed(base.replace('203.0.113.9', '::ffff:192.0.2.1')).clientIp, '::ffff:192.0.2.1');
    assert.equal(parsed(base.replace('203.0.113.9', '2001:0db8:0000:0000:0000:0000:0000:0001')).clientIp, '2001:0db8:0000:0000:0000:0000:0000:0001');
    assert.equal(parsed(base.replace('203.0.113.9', 'unix:')).clientIp, undefined);
    assert.equal(parsed(base.replace('203.0.113.9', '<ip address>')).clientIp, undefined);
    assert.equal(parsed(base.replace('203.0.113.9', '<ip address>')).host, undefined);
  });

  test('vhost prefixes: host, host:port, upper case; bunkerweb request id', () => {
    assert.equal(parsed(`acme.example ${base}`).host, 'acme.example');
    assert.equal(parsed(`Acme.Example:443 ${base}`).host, 'acme.example');
    assert.equal(parsed(`acme.example:8080 ${base}`).clientIp, '203.0.113.9');
    const bunker = parsed(`acme.example ${base.replace('- -', '- req-42 -')}`);
    assert.deepEqual([bunker.host, bunker.clientIp, bunker.status], ['acme.example', '203.0.113.9', 200]);
  });

  test('escaped quotes inside quoted fields: Apache \\" and \\\\, nginx \\x22 and \\x5C', () => {
    const apache = parsed(`${base} "-" "Mozilla/5.0 \\"quoted\\" back\\\\slash GPTBot/1.2"`);
    assert.equal(apache.userAgent, 'Mozilla/5.0 "quoted" back\\slash GPTBot/1.2');
    const nginx = parsed(`${base} "-" "Mozilla/5.0 \\x22quoted\\x22 back\\x5Cslash GPTBot/1.2"`);
    assert.equal(nginx.userAgent, apache.userAgent);
    // A quote escaped at the very end of a field, then a real closing quote.
    assert.equal(parsed(`${base} "a\\"" "b"`).referrer, 'a"');
    assert.equal(parsed(`${base} "a\\\\" "b"`).referrer, 'a\\');
    assert.equal(parsed(`${base} "a\\\\" "b"`).userAgent, 'b');
  });

  test('\\xHH bytes: UTF-8 decoded; other bytes kept as written; NUL kept as written', () => {
    assert.equal(parsed(`${base} "https://example.com/caf\\xC3\\xA9" "-"`).referrer, 'https://example.com/café');
    assert.equal(parsed(`${base} "https://example.com/caf\\xc3\\xa9" "-"`).referrer, 'https://example.com/café');
    assert.equal(parsed(`${base} "x\\xE9y" "-"`).referrer, 'x\\xE9y');
    assert.equal(parsed(`${base} "\\x41\\xE9\\x42" "-"`).referrer, 'A\\xE9B');
    assert.equal(parsed(`${base} "a\\x00b" "-"`).referrer, 'a\\x00b');
    assert.equal(parsed(`${base} "a\\x0Ab\\nc\\td" "-"`).referrer, 'a\nb\nc\td');
    assert.equal(parsed(`${base} "a\\xZZ\\qb" "-"`).referrer, 'a\\xZZ\\qb');
    assert.equal(parsed(`${base} "a\\x4" "-"`).referrer, 'a\\x4');
    assert.equal(parsed(`${base} "\\x" "-"`).referrer, '\\x');
  });

  test('extra trailing fields after the user agent are ignored', () => {
    const entry = parsed(`${base} "-" "${GPTBOT}" "198.51.100.7" 0.487 req=abc`);
    assert.equal(entry.userAgent, GPTBOT);
    assert.equal(entry.clientIp, '203.0.113.9');
  });

  test('docker-compose and log-viewer prefixes', () => {
    assert.equal(parsed(`proxy  | ${base} "-" "${GPTBOT}"`).userAgent, GPTBOT);
    assert.equal(parsed(`2025-07-23 10:27:38 | ${base}`).clientIp, '203.0.113.9');
  });

  test('request lines: absolute-form, no protocol, unencoded space, "-", junk', () => {
    const withRequest = (r: string) => parsed(base.replace('GET /pricing?utm_source=chatgpt.com HTTP/1.1', r));
    assert.equal(withRequest('GET http://acme.example/x HTTP/1.1').target, 'http://acme.example/x');
    assert.deepEqual([withRequest('GET /robots.txt 2.0').method, withRequest('GET /robots.txt 2.0').target], ['GET', '/robots.txt']);
    assert.equal(withRequest('GET /robots.txt').target, '/robots.txt');
    assert.equal(withRequest('GET /a b HTTP/1.1').target, '/a b');
    assert.equal(withRequest('PROPFIND /dav/ HTTP/1.1').method, 'PROPFIND');
    for (const junk of ['-', '', 'HELP', '\\x16\\x03\\x01\\x01 \\x02', 'get / HTTP/1.1', 'a b c d']) {
      const entry = withRequest(junk);
      assert.deepEqual([entry.method, entry.target, entry.status], [undefined, undefined, 200], junk);
    }
  });

  test('times: zones, and impossible dates reject the line', () => {
    assert.equal(iso(parsed(base.replace('+0100', '-0330'))), '2025-12-01T15:30:00.000Z');
    assert.equal(iso(parsed(base.replace(' +0100', ''))), '2025-12-01T12:00:00.000Z');
    for (const bad of ['31/Feb/2025:12:00:00 +0000', '01/Foo/2025:12:00:00 +0000', '01/Dec/2025:25:00:00 +0000', 'error', '01/Dec/2025:12:00:00 +2500']) {
      assert.equal(parseLogLine(base.replace('01/Dec/2025:12:00:00 +0100', bad)), undefined, bad);
    }
  });

  test('lines that are not the grammar, or are cut short', () => {
    for (const line of [
      '',
      '   ',
      '-',
      'hello world',
      '203.0.113.9 [01/Dec/2025:12:00:00 +0100] "GET / HTTP/1.1" 200 1 "-" "-"',
      '203.0.113.9 - [01/Dec/2025:12:00:00 +0100] "GET / HTTP/1.1" 200 1 "-" "-"',
      '[01/Dec/2025:12:00:00 +0100] acme.example 203.0.113.9 0.2 "GET / HTTP/1.1" 200 1 440 - curl/8',
      `${base.replace('200 512', 'OK 512')}`,
      `${base.replace('200 512', '200 big')}`,
      `${base.replace('200 512', '200')}`,
      `${base} - -`,
      `${base} "https://chatgpt.com/`,
      `${base} "-" "${GPTBOT}`,
      base.slice(0, base.indexOf('HTTP/1.1')),
      '2021/12/01 13:53:33 [error] 31#31: *46 open() failed, client: 172.17.0.1',
    ]) {
      assert.equal(parseLogLine(line), undefined, line);
    }
  });
});

describe('Caddy JSON variants', () => {
  test('the current schema, NOP included', () => {
    const entry = parsed(caddyLine());
    assert.deepEqual({ ...entry, at: iso(entry) }, {
      format: 'caddy',
      at: '2025-12-01T12:00:00.250Z',
      method: 'GET',
      host: 'acme.example',
      target: '/pricing?utm_source=chatgpt.com',
      status: 200,
      userAgent: GPTBOT,
      referrer: 'https://chatgpt.com/',
      clientIp: '203.0.113.9',
    });
    assert.deepEqual(parseLogLine(caddyLine({ msg: 'NOP' })), entry);
    assert.deepEqual(parseLogLine(caddyLine({ level: 'error', status: 502 }))?.status, 502);
  });

  test('ts: float seconds, milli-, micro-, nanoseconds, and the string layouts', () => {
    const at = (ts: unknown) => iso(parsed(caddyLine({ ts })));
    assert.equal(at(1764590400.25), '2025-12-01T12:00:00.250Z');
    assert.equal(at(1764590400250.5), '2025-12-01T12:00:00.251Z');
    assert.equal(at(1764590400250000), '2025-12-01T12:00:00.250Z');
    assert.equal(at(1764590400250000000), '2025-12-01T12:00:00.250Z');
    assert.equal(at('1764590400'), '2025-12-01T12:00:00.000Z');
    assert.equal(at('2025-12-01T12:00:00.25Z'), '2025-12-01T12:00:00.250Z');
    assert.equal(at('2025-12-01T20:00:00.250+0800'), '2025-12-01T12:00:00.250Z');
    assert.equal(at('2025-12-01T07:00:00.250123456-05:00'), '2025-12-01T12:00:00.250Z');
    assert.equal(at('2025/12/01 12:00:00.250'), '2025-12-01T12:00:00.250Z');
    assert.equal(at('2025/12/01 12:00:00'), '2025-12-01T12:00:00.000Z');
    assert.equal(at('01/Dec/2025:13:00:00 +0100'), '2025-12-01T12:00:00.000Z');
    // caddy#7032: a layout typo gives a literal string; the line still counts, without a time.
    for (const ts of ['ios8605', '', '2025-02-30T00:00:00Z', -1, null, true, [1], { s: 1 }, 1e300]) {
      const entry = parsed(caddyLine({ ts }));
      assert.equal(entry.at, undefined, String(ts));
    }
    assert.equal(parsed(caddyLine({ ts: undefined })).at, undefined);
  });

  test('client address: client_ip, else remote_ip, else remote_addr (old schema, IPv6 bracketed)', () => {
    const ip = (request: Record<string, unknown>) => parsed(caddyLine({}, request)).clientIp;
    assert.equal(ip({ remote_ip: '10.5.1.1', client_ip: '198.51.100.4' }), '198.51.100.4');
    assert.equal(ip({ remote_ip: '10.5.1.1', client_ip: '' }), '10.5.1.1');
    assert.equal(ip({ remote_ip: '10.5.1.1', client_ip: undefined }), '10.5.1.1');
    assert.equal(ip({ remote_ip: undefined, client_ip: undefined, remote_addr: '66.214.199.16:63555' }), '66.214.199.16');
    assert.equal(ip({ remote_ip: undefined, client_ip: undefined, remote_addr: '[2001:db8::1]:443' }), '2001:db8::1');
    assert.equal(ip({ remote_ip: undefined, client_ip: undefined, remote_addr: '2001:db8::1' }), '2001:db8::1');
    assert.equal(ip({ remote_ip: undefined, client_ip: undefined }), undefined);
    assert.equal(ip({ remote_ip: 'hashed-7f3a', client_ip: 'hashed-7f3a' }), undefined);
  });

  test('headers: arrays under canonical keys, any case, plain strings, absent, empty', () => {
    const headers = (h: Record<string, unknown>) => parsed(caddyLine({}, { headers: h }));
    assert.equal(headers({ 'user-agent': [GPTBOT], referer: ['https://claude.ai/'] }).referrer, 'https://claude.ai/');
    assert.equal(headers({ 'USER-AGENT': GPTBOT }).userAgent, GPTBOT);
    assert.equal(headers({ 'User-Agent': [] }).userAgent, '');
    assert.equal(headers({ 'User-Agent': ['-'] }).userAgent, '');
    assert.equal(headers({ 'User-Agent': [7, 'second'] }).userAgent, 'second');
    assert.equal(headers({ 'User-Agent': 42 }).userAgent, '');
    assert.deepEqual([headers({}).userAgent, headers({}).referrer], ['', '']);
    assert.equal(parsed(caddyLine({}, { headers: 'nope' })).userAgent, '');
  });

  test('host: port and case dropped; bracketed IPv6; absent', () => {
    const host = (h: unknown) => parsed(caddyLine({}, { host: h })).host;
    assert.equal(host('Acme.Example:8443'), 'acme.example');
    assert.equal(host('[2001:db8::1]:443'), '2001:db8::1');
    assert.equal(host(undefined), undefined);
    assert.equal(host(''), undefined);
  });

  test('status: integer or numeric string; anything else unknown', () => {
    const status = (s: unknown) => parsed(caddyLine({ status: s })).status;
    assert.equal(status(0), 0);
    assert.equal(status('404'), 404);
    for (const s of [200.5, -1, 1000, 'ok', null, undefined]) assert.equal(status(s), undefined, String(s));
  });

  test('prefixes before intact JSON: docker compose, syslog; the console encoder head', () => {
    const line = caddyLine();
    const expected = parsed(line);
    assert.deepEqual(parseLogLine(`caddy  | ${line}`), expected);
    assert.deepEqual(parseLogLine(`caddy-1  | ${line}`), expected);
    assert.deepEqual(parseLogLine(`Dec  1 12:00:00 web caddy[811]: ${line}`), expected);
    const body = JSON.stringify({ request: JSON.parse(line).request, status: 200 });
    const console_ = parsed(`2025/12/01 12:00:00.250\t\u001b[34mINFO\u001b[0m\thttp.log.access.log0\tNOP\t${body}`);
    assert.deepEqual({ ...console_, at: iso(console_) }, { ...expected, at: iso(expected) });
    assert.equal(parseLogLine(`2025/12/01 12:00:00.250\tINFO\thttp.handlers.reverse_proxy\terror\t${body}`), undefined);
  });

  test('not access lines: runtime logs, other loggers, no request, not an object', () => {
    for (const line of [
      '{"level":"info","ts":1761019822.31,"logger":"admin","msg":"admin endpoint started","address":"localhost:2019"}',
      caddyLine({ logger: 'http.handlers.reverse_proxy', msg: 'aborting with incomplete response' }),
      caddyLine({ logger: 'http.log.error', msg: 'dial tcp: connection refused', status: 502 }),
      caddyLine({ request: 'GET /' }),
      caddyLine({ request: [] }),
      caddyLine({}, { method: undefined, uri: undefined }),
      '["request"]',
      '{"request":null}',
      '{}',
      '{',
      'caddy  | {"level":"info","msg":"serving initial configuration"}',
      'caddy  | {"request":{"method":"GET","uri":"/"}} trailing',
    ]) {
      assert.equal(parseLogLine(line), undefined, line.slice(0, 100));
    }
    // Without a logger key (renamed with name_key), a line with a request is taken as access.
    assert.equal(parsed(caddyLine({ logger: undefined })).status, 200);
  });

  test('truncated: every proper prefix of a Caddy line gives undefined', () => {
    const line = caddyLine();
    for (let cut = 0; cut < line.length; cut++) assert.equal(parseLogLine(line.slice(0, cut)), undefined, String(cut));
  });

  test('text that storage cannot take is made storable: NUL, lone surrogates', () => {
    const entry = parsed(caddyLine({}, { uri: '/a\u0000b', headers: { 'User-Agent': ['x\ud800y'] } }));
    assert.equal(entry.target, '/a\uFFFDb');
    assert.equal(entry.userAgent, 'x\uFFFDy');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

describe('properties', () => {
  const corpus = [
    ...combined,
    ...corpusLines('ai_lines_real.log'),
    ...corpusLines('caddy_real.jsonl'),
    ...corpusLines('caddy_real_mixed_docker.log'),
    ...corpusLines('caddy_real_console_encoder.log'),
    ...corpusLines('caddy_fragments_incomplete.txt'),
  ];

  test('never throws on arbitrary strings and JSON; results are well-typed', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 400 }),
          fc.string({ unit: fc.constantFrom('"', '\\', 'x', '[', ']', '{', '}', ' ', '|', '\t', '-', '0', 'A', '/', ':'), maxLength: 200 }),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ request: v, logger: 'http.log.access' })),
          fc.jsonValue().map((v) => JSON.stringify({ ts: v, request: { method: 'GET', uri: '/', headers: v, host: v, client_ip: v } })),
        ),
        (line) => assertWellTyped(parseLogLine(line)),
      ),
      { numRuns: 3000 },
    );
  });

  test('never throws on corpus lines with characters inserted and deleted', () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 6 }),
      insert: fc.string({ unit: fc.constantFrom('"', '\\', '\\x', '[', ']', '{', '}', ' ', '|', '\t', ':', 'é', '\0', '\ud800'), maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.constantFrom(...corpus), fc.array(edit, { minLength: 1, maxLength: 6 }), (line, edits) => {
        let mutated = line;
        for (const e of edits) {
          const at = mutated.length === 0 ? 0 : e.at % (mutated.length + 1);
          mutated = mutated.slice(0, at) + e.insert + mutated.slice(at + e.remove);
        }
        assertWellTyped(parseLogLine(mutated));
      }),
      { numRuns: 3000 },
    );
  });

  test('adversarial 16 KiB lines parse in linear time', () => {
    const n = 16_384;
    const shapes = [
      '\\'.repeat(n),
      '"\\'.repeat(n / 2),
      `1.2.3.4 - - [01/Dec/2025:12:00:00 +0000] "${'\\"'.repeat(n / 2)}`,
      `1.2.3.4 - - [01/Dec/2025:12:00:00 +0000] "GET / HTTP/1.1" 200 1 "${'\\x'.repeat(n / 2)}" "-"`,
      `1.2.3.4 - - [01/Dec/2025:12:00:00 +0000] "GET / HTTP/1.1" 200 1 "${'\\xC3'.repeat(n / 4)}" "-"`,
      '[ '.repeat(n / 2),
      ' ['.repeat(n / 2),
      `x ${'| '.repeat(n / 2)}[`,
      `caddy | ${'{'.repeat(n)}}`,
      `{"request":${'['.repeat(n / 2)}`,
      `{"request":{"method":"GET","uri":"/","headers":{${'"a":[],'.repeat(n / 8)}"b":[]}},"ts":"${'1'.repeat(5000)}"}`,
      `{"ts":"${'2025-12-01T12:00:00.'}${'1'.repeat(n)}Z","request":{"method":"GET"}}`,
    ];
    for (const line of shapes) {
      const started = performance.now();
      assertWellTyped(parseLogLine(line));
      const ms = performance.now() - started;
      assert.ok(ms < 100, `${ms.toFixed(1)} ms for ${JSON.stringify(line.slice(0, 40))}`);
    }
  });

  // Well-formed text as a logged field may hold: no NUL (kept written as \x00 by design).
  const fieldText = fc.string({ unit: 'binary', maxLength: 60 }).filter((s) => !s.includes('\0'));
  const ipv6 = fc.ipV6().filter((ip) => isIP(ip) === 6);
  // Whole-second times in the years logs come from, with the zone offset the line is written in.
  const when = fc.record({
    ms: fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2099, 11, 31) }).map((t) => Math.floor(t / 1000) * 1000),
    offset: fc.integer({ min: -14 * 60, max: 14 * 60 }),
  });
  const target = fc
    .tuple(fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined }))
    .map(([path, query]) => `/${path.replace(/^\/+/, '')}${query === undefined ? '' : `?${query}`}`);
  const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND');

  /** nginx's `escape=default`: `"`, `\`, controls and every non-ASCII byte as \xHH. */
  function nginxEscape(text: string): string {
    let out = '';
    for (const byte of new TextEncoder().encode(text)) {
      out += byte === 0x22 || byte === 0x5c || byte < 0x20 || byte >= 0x7f ? `\\x${byte.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(byte);
    }
    return out;
  }
  /** Apache's ap_escape_logitem: `\"`, `\\`, C escapes, other unprintable bytes as \xhh. */
  function apacheEscape(text: string): string {
    const named: Record<number, string> = { 0x22: '\\"', 0x5c: '\\\\', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x08: '\\b', 0x0b: '\\v' };
    let out = '';
    for (const byte of new TextEncoder().encode(text)) {
      out += named[byte] ?? (byte < 0x20 || byte >= 0x7f ? `\\x${byte.toString(16).padStart(2, '0')}` : String.fromCharCode(byte));
    }
    return out;
  }

  function clfTime(ms: number, offset: number): string {
    const local = new Date(ms + offset * 60_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)}`;
    return `${pad(local.getUTCDate())}/${months[local.getUTCMonth()]}/${local.getUTCFullYear()}:${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())} ${zone}`;
  }

  test('combined lines written from random fields read back the same', () => {
    fc.assert(
      fc.property(
        fc.record({
          prefix: fc.constantFrom('', 'proxy  | ', 'web-1 | '),
          vhost: fc.option(fc.tuple(fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })), { nil: undefined }),
          client: fc.oneof(fc.ipV4(), ipv6),
          user: fc.constantFrom('-', 'bob', 'user123'),
          when,
          method,
          target,
          protocol: fc.constantFrom(' HTTP/1.0', ' HTTP/1.1', ' HTTP/2.0', ' HTTP/3.0', ''),
          status: fc.integer({ min: 100, max: 599 }),
          size: fc.oneof(fc.nat().map(String), fc.constant('-')),
          tail: fc.oneof(
            fc.constant(undefined),
            fc.record({ referrer: fc.oneof(fieldText, fc.webUrl(), fc.constant('-')), userAgent: fc.oneof(fieldText, fc.constant(GPTBOT), fc.constant('-')) }),
          ),
          escape: fc.constantFrom(nginxEscape, apacheEscape),
          trailing: fc.constantFrom('', ' "-"', ' "198.51.100.7" 0.487', '  '),
        }),
        (f) => {
          const head = `${f.vhost === undefined ? '' : `${f.vhost[0]}${f.vhost[1] === undefined ? '' : `:${f.vhost[1]}`} `}${f.client} - ${f.user}`;
          let line = `${f.prefix}${head} [${clfTime(f.when.ms, f.when.offset)}] "${f.escape(`${f.method} ${f.target}${f.protocol}`)}" ${f.status} ${f.size}`;
          if (f.tail !== undefined) line += ` "${f.escape(f.tail.referrer)}" "${f.escape(f.tail.userAgent)}"${f.trailing}`;
          const entry = parseLogLine(line);
          assertWellTyped(entry);
          assert.ok(entry, line);
          assert.equal(entry.format, 'combined');
          assert.equal(entry.at?.getTime(), f.when.ms);
          assert.equal(entry.method, f.method);
          assert.equal(entry.target, f.target);
          assert.equal(entry.status, f.status);
          assert.equal(entry.clientIp, f.client);
          assert.equal(entry.host, f.vhost?.[0].toLowerCase());
          const dash = (s: string | undefined) => (s === undefined || s === '-' ? '' : s);
          assert.equal(entry.referrer, dash(f.tail?.referrer));
          assert.equal(entry.userAgent, dash(f.tail?.userAgent));
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('Caddy JSON lines written from random fields read back the same', () => {
    const headerKey = (canonical: string) => fc.constantFrom(canonical, canonical.toLowerCase());
    fc.assert(
      fc.property(
        fc.record({
          prefix: fc.constantFrom('', 'caddy  | '),
          logger: fc.constantFrom('http.log.access', 'http.log.access.log0', 'http.log.access.example.com', undefined),
          msg: fc.constantFrom('handled request', 'NOP'),
          when: fc.tuple(when, fc.integer({ min: 0, max: 999 })).map(([w, ms]) => w.ms + ms),
          tsForm: fc.constantFrom('seconds', 'millis', 'nanos', 'rfc3339', 'wall'),
          address: fc.oneof(
            fc.record({ kind: fc.constant('remote_ip' as const), ip: fc.oneof(fc.ipV4(), ipv6), proxy: fc.option(fc.ipV4(), { nil: undefined }) }),
            fc.record({ kind: fc.constant('remote_addr' as const), ip: fc.oneof(fc.ipV4(), ipv6), proxy: fc.constant(undefined) }),
          ),
          method,
          host: fc.option(fc.tuple(fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })), { nil: undefined }),
          uri: target,
          userAgent: fc.option(fc.oneof(fieldText, fc.constant(GPTBOT), fc.constant('-')), { nil: undefined }),
          referrer: fc.option(fc.oneof(fieldText, fc.webUrl()), { nil: undefined }),
          uaKey: headerKey('User-Agent'),
          refKey: headerKey('Referer'),
          status: fc.integer({ min: 0, max: 599 }),
          extra: fc.dictionary(fc.constantFrom('traceID', 'user_id', 'bytes_read', 'common_log'), fc.jsonValue(), { maxKeys: 2 }),
        }),
        (f) => {
          const ts =
            f.tsForm === 'seconds' ? f.when / 1000
            : f.tsForm === 'millis' ? f.when
            : f.tsForm === 'nanos' ? f.when * 1e6
            : f.tsForm === 'rfc3339' ? new Date(f.when).toISOString()
            : new Date(f.when).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
          const request: Record<string, unknown> = { proto: 'HTTP/2.0', method: f.method, uri: f.uri, headers: { Accept: ['*/*'] } };
          if (f.address.kind === 'remote_ip') {
            request.remote_ip = f.address.proxy ?? f.address.ip;
            request.remote_port = '443';
            request.client_ip = f.address.ip;
          } else {
            request.remote_addr = f.address.ip.includes(':') ? `[${f.address.ip}]:5555` : `${f.address.ip}:5555`;
          }
          if (f.host !== undefined) request.host = f.host[1] === undefined ? f.host[0] : `${f.host[0]}:${f.host[1]}`;
          const headers = request.headers as Record<string, unknown>;
          if (f.userAgent !== undefined) headers[f.uaKey] = [f.userAgent];
          if (f.referrer !== undefined) headers[f.refKey] = [f.referrer];
          const line = f.prefix + JSON.stringify({ level: 'info', ts, logger: f.logger, msg: f.msg, request, ...f.extra, status: f.status });
          const entry = parseLogLine(line);
          assertWellTyped(entry);
          assert.ok(entry, line);
          assert.equal(entry.format, 'caddy');
          assert.equal(entry.at?.getTime(), f.when);
          assert.equal(entry.method, f.method);
          assert.equal(entry.target, f.uri);
          assert.equal(entry.status, f.status);
          assert.equal(entry.clientIp, f.address.ip);
          assert.equal(entry.host, f.host?.[0].toLowerCase());
          assert.equal(entry.userAgent, f.userAgent === undefined || f.userAgent === '-' ? '' : f.userAgent);
          assert.equal(entry.referrer, f.referrer ?? '');
        },
      ),
      { numRuns: 1000 },
    );
  });
});
