/**
 * The app's pages beyond the overview, in a real headless Chromium (Debian's), on the demo data
 * plus a few ingested log lines: the navigation keeps the range and the filters; citations,
 * changes, traffic and the runs show what their API endpoints answer; a run's answer has the
 * subjects it names marked; settings change for an owner (a key made in the page works on the API
 * until it is revoked in the page) and not for a viewer (no control, and 403 when forced); a change
 * without the CSRF token is refused. Every request stays on the service's origin and the console
 * stays clean. Screenshots of every page land in .tmp/screenshots/ (gitignored).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { createUser } from '../src/accounts/create-user.ts';
import type { Database } from '../src/db/database.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { utcDay } from '../src/usage/calendar.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { createProject } from '../src/projects/create-project.ts';
import { addPrompt } from '../src/prompts/add-prompt.ts';
import { createOutbound, type Outbound } from '../src/outbound/outbound.ts';
import { ENGINE_ADAPTERS } from '../src/sampling/providers/adapters.ts';
import { loadSamplingConfig } from '../src/sampling/providers/providers-config.ts';
import { createChecker } from '../src/verification/checker.ts';
import { dnsHealth } from '../src/verification/dns-health.ts';
import { openTestDatabase } from './helpers.ts';
import { ROOT } from './processes.ts';
import { chromiumSkip, launchChromium } from './chromium.ts';

/** People are one per email across workspaces: on a server database shared by the suites, each run's are its own. */
const RUN = Math.random().toString(36).slice(2, 8);


const SCREENSHOTS = join(ROOT, '.tmp', 'screenshots');
const PASSWORD = 'a long enough password';
const OWNER = `owner-${RUN}@example.test`;
const VIEWER = `viewer-${RUN}@example.test`;
/** The owner of a workspace without a project yet. */
const NEWCOMER = `newcomer-${RUN}@example.test`;
/** The owner of a workspace with a project and a prompt, who does in the page what the CLI does. */
const OPERATOR = `operator-${RUN}@example.test`;

interface Run {
  id: string;
  promptId: string;
  day: string;
  status: string;
  mentions: { subjectId: string; subjectType: string; name: string }[];
}

interface RunDetail extends Run {
  answer: string | null;
  citations: { url: string; domain: string; status: string }[];
  ads: { advertiser: string }[];
  provider: string | null;
  model: string | null;
}

const from28 = (today: string) => new Date(Date.parse(`${today}T00:00:00Z`) - 27 * 86_400_000).toISOString().slice(0, 10);

/** Combined-format log lines of today: a GPTBot hit and two visits from AI answers. */
function logLines(day: string): string {
  const [y, m, d] = day.split('-');
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][Number(m) - 1];
  const at = (hour: string) => `[${d}/${month}/${y}:${hour}:00:00 +0000]`;
  const browserUa = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
  return [
    `1.2.3.4 - - ${at('09')} "GET /pricing HTTP/1.1" 200 512 "-" "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"`,
    `5.6.7.8 - - ${at('10')} "GET /features HTTP/1.1" 200 512 "https://chatgpt.com/" "${browserUa}"`,
    `9.9.9.9 - - ${at('11')} "GET /blog/crm-checklist HTTP/1.1" 200 512 "https://www.perplexity.ai/" "${browserUa}"`,
  ].join('\n');
}

describe('the app pages in Chromium', { skip: chromiumSkip }, () => {
  let database: Database;
  let app: FastifyInstance;
  let browser: Browser;
  let origin: string;
  let projectId: string;
  let operator: { workspaceId: string; projectId: string };
  /** The checker's and the providers' client: it resolves no name, so nothing leaves the machine. */
  let offline: Outbound;
  /** Requests to anywhere but the service, and console errors, over the whole suite. */
  const elsewhere: string[] = [];
  const consoleErrors: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    database = await openTestDatabase();
    const [seed, launched] = await Promise.all([
      seedDemo(database.db),
      launchChromium(),
    ]);
    browser = launched;
    projectId = seed.projectId;
    await createUser(database.db, { workspaceId: seed.workspaceId, email: OWNER, password: PASSWORD, role: 'owner' });
    await createUser(database.db, { workspaceId: seed.workspaceId, email: VIEWER, password: PASSWORD, role: 'viewer' });
    const empty = await createWorkspace(database.db, { name: 'Fresh workspace' });
    await createUser(database.db, { workspaceId: empty.id, email: NEWCOMER, password: PASSWORD, role: 'owner' });
    const opsWorkspace = await createWorkspace(database.db, { name: 'Operations', plan: 'starter' });
    const opsProject = await createProject(database.db, opsWorkspace.id, { name: 'Initech', domain: 'initech.example' });
    await addPrompt(database.db, opsProject.id, { text: 'best tps report software', engines: ['chatgpt'] });
    await createUser(database.db, { workspaceId: opsWorkspace.id, email: OPERATOR, password: PASSWORD, role: 'owner' });
    operator = { workspaceId: opsWorkspace.id, projectId: opsProject.id };
    // Sampling without a provider key (checks skipped, nothing sent) and a checker whose resolver knows no name.
    offline = createOutbound({ userAgent: 'SightlineBot/test', lookup: async (host) => Promise.reject(Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' })) });
    const sampling = loadSamplingConfig({});
    app = await buildApp({
      db: database.db,
      configuredEngines: ['chatgpt', 'perplexity'],
      sampler: { db: database.db, outbound: offline, sampling, providers: sampling.providers, adapters: ENGINE_ADAPTERS, now: () => new Date() },
      verifier: { db: database.db, check: createChecker(offline), dnsWorks: dnsHealth(offline), now: () => new Date(), recheckDays: 7, concurrency: 2 },
    });
    await app.ready();
    const ingest = await app.inject({
      method: 'POST',
      url: `/api/ingest/${projectId}?source=rest`,
      headers: { authorization: `Bearer ${seed.keys.ingest}`, 'content-type': 'text/plain' },
      payload: logLines(utcDay(new Date())),
    });
    assert.deepEqual(JSON.parse(ingest.body).data, { linesRead: 3, crawlerHits: 1, aiVisits: 2, dropped: 0, duplicates: 0 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await offline?.close();
    await database?.close();
  });

  /** A fresh browser profile, signed in as `email` (through the API, as the sign-in page does), whose requests and console are watched. */
  async function open(email: string, options: { viewport?: { width: number; height: number }; refusals?: number[] } = {}): Promise<{ context: BrowserContext; page: Page; api: (path: string) => Promise<any> }> {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== origin) elsewhere.push(request.url());
    });
    page.on('console', (message) => {
      // A change the test makes to be refused is a 4xx answer by design, which Chromium reports as a failed resource.
      const refused = /status of (\d{3})/.exec(message.text());
      if (message.type() === 'error' && !(refused && options.refusals?.includes(Number(refused[1])))) consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400 && !options.refusals?.includes(response.status())) consoleErrors.push(`${response.status()} ${response.url()}`);
    });
    const signedIn = await context.request.post(`${origin}/app/session`, { data: { email, password: PASSWORD } });
    assert.equal(signedIn.status(), 200);
    const api = async (path: string) => {
      const response = await context.request.get(`${origin}${path}`);
      assert.equal(response.status(), 200, `${path}: ${await response.text()}`);
      return (await response.json()).data;
    };
    return { context, page, api };
  }

  /** Opens an address and waits until the page has loaded what it shows. */
  async function visit(page: Page, path: string) {
    await page.goto(`${origin}${path}`);
    await settled(page);
  }

  const settled = (page: Page) => page.waitForSelector('main:not([aria-busy])');

  async function navigate(page: Page, name: string, pathname: string) {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
    await page.waitForURL((url) => url.pathname === pathname);
    await settled(page);
  }

  const cells = (page: Page, selector: string) => page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent!.trim())));

  test('the navigation keeps the range and the filters; citations, changes and traffic show their API', async () => {
    const { context, page, api } = await open(OWNER);
    const { engines } = await api('/api/v1/engines');
    const engine = engines[0];
    await visit(page, `/projects/${projectId}?range=7&engineId=${engine.id}`);
    const today = await page.$eval('meta[name="sightline-today"]', (m) => m.getAttribute('content')!);
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    assert.equal(await nav.getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current'), 'page');

    // Citations: under the same range and engine, the domains are the API's, in its order.
    await navigate(page, 'Citations', `/projects/${projectId}/citations`);
    assert.equal(new URL(page.url()).search, `?range=7&engineId=${engine.id}`);
    assert.equal(await page.getByLabel('Engine', { exact: true }).inputValue(), engine.id);
    assert.equal(await page.locator('#range-7').isChecked(), true);
    assert.equal(await nav.getByRole('link', { name: 'Citations', exact: true }).getAttribute('aria-current'), 'page');
    const citations = await api(`/api/v1/projects/${projectId}/citations?from=${from}&to=${today}&engineId=${engine.id}`);
    const domains = await cells(page, '#domains');
    assert.ok(citations.domains.length > 0);
    assert.deepEqual(
      domains.map((r) => [r[0], r[2], r[4], r[5]]),
      citations.domains.map((d: { domain: string; citedCount: number; statusCounts: { broken: number; hallucinated: number } }) => [d.domain, d.citedCount.toLocaleString('en'), d.statusCounts.broken.toLocaleString('en'), d.statusCounts.hallucinated.toLocaleString('en')]),
    );
    // Citation health: over the range only; per engine, the hallucinated share with its interval.
    const health = await api(`/api/v1/projects/${projectId}/citation-health?from=${from}&to=${today}`);
    const hallucinated = health.overall.hallucinated;
    assert.equal(await page.locator('#health-totals [data-share="hallucinated"] strong').textContent(), `${hallucinated.share.toFixed(2)}% (${hallucinated.ciLow.toFixed(2)}–${hallucinated.ciHigh.toFixed(2)}%)`);
    assert.equal(await page.locator('#health tbody tr').count(), health.engines.filter((e: { urls: number }) => e.urls > 0).length);
    const missing = (await cells(page, '#missing')).map((r) => r[0]);
    assert.deepEqual(missing, health.missingOwnPages.map((p: { url: string }) => p.url));
    await page.screenshot({ path: join(SCREENSHOTS, 'citations.png'), fullPage: true });

    // Changes: the range is kept (the engine too, for the pages that use it); every kind, with its summary.
    await navigate(page, 'Changes', `/projects/${projectId}/changes`);
    assert.equal(new URL(page.url()).search, `?range=7&engineId=${engine.id}`);
    assert.equal(await page.locator('#range-7').isChecked(), true);
    // The demo's changes are random per project: 28 days surely hold some.
    await page.getByText('28 days', { exact: true }).click();
    await page.waitForURL((url) => url.search === `?engineId=${engine.id}`);
    await settled(page);
    const { events } = await api(`/api/v1/projects/${projectId}/changes?from=${from28(today)}&to=${today}`);
    assert.ok(events.length > 0, 'the demo has changes in 28 days');
    const listed = await cells(page, '#changes');
    assert.deepEqual(listed.map((r) => r[4]), events.map((e: { summary: string }) => e.summary));
    assert.deepEqual(listed.map((r) => r[1]), events.map((e: { kindLabel: string }) => e.kindLabel));
    await page.screenshot({ path: join(SCREENSHOTS, 'changes.png'), fullPage: true });
    const kind = events[events.length - 1].kind;
    await page.getByLabel('Kind').selectOption(kind);
    await page.waitForURL(new RegExp(`kind=${kind}`));
    assert.equal(await page.locator('#changes tbody tr').count(), events.filter((e: { kind: string }) => e.kind === kind).length);
    assert.equal(await page.locator(`#changes tbody tr:not([data-kind="${kind}"])`).count(), 0);

    // Traffic: the range picked on the changes page holds; the totals and the platforms of the ingested lines.
    await navigate(page, 'Traffic', `/projects/${projectId}/traffic`);
    assert.equal(new URL(page.url()).search, `?engineId=${engine.id}`, 'the kind stays with the changes page');
    assert.equal(await page.locator('#range-28').isChecked(), true);
    assert.equal(await page.locator('#traffic-totals [data-total="crawlerHits"] strong').textContent(), '1');
    assert.equal(await page.locator('#traffic-totals [data-total="aiVisits"] strong').textContent(), '2');
    assert.deepEqual(await cells(page, '#crawlers'), [['OpenAI', 'GPTBot', '1']]);
    assert.deepEqual((await cells(page, '#visits')).sort(), [['OpenAI', '1'], ['Perplexity', '1']]);
    assert.deepEqual(await cells(page, '#crawled-pages'), [['/pricing', '1']]);
    await page.screenshot({ path: join(SCREENSHOTS, 'traffic.png'), fullPage: true });

    // Prompts & runs, then back to the overview: the filters held all the way.
    await navigate(page, 'Prompts & runs', `/projects/${projectId}/prompts`);
    assert.equal(await page.getByLabel('Engine', { exact: true }).inputValue(), engine.id);
    const { runs } = await api(`/api/v1/projects/${projectId}/runs?from=${from28(today)}&to=${today}&engineId=${engine.id}&limit=25`);
    assert.deepEqual(await page.$$eval('#runs tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-run-id'))), runs.map((r: Run) => r.id));
    await navigate(page, 'Overview', `/projects/${projectId}`);
    await page.locator('#chart svg[data-days="28"]').waitFor();
    assert.equal(await page.getByLabel('Engine', { exact: true }).inputValue(), engine.id);
    assert.equal(await page.locator('#range-28').isChecked(), true);
    await context.close();
  });

  test('runs: newest first, a status filter, more pages through nextCursor, recent answers per prompt; a chart point opens its day', async () => {
    const { context, page, api } = await open(OWNER);
    await visit(page, `/projects/${projectId}/prompts`);
    const ids = () => page.$$eval('#runs tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-run-id')));
    const first = await api(`/api/v1/projects/${projectId}/runs?limit=25`);
    assert.deepEqual(await ids(), first.runs.map((r: Run) => r.id));
    await page.screenshot({ path: join(SCREENSHOTS, 'prompts-and-runs.png'), fullPage: true });

    // The next page, through the cursor the API gave.
    const second = await api(`/api/v1/projects/${projectId}/runs?limit=25&cursor=${first.nextCursor}`);
    await page.getByRole('button', { name: 'Show more runs' }).click();
    await page.locator('#runs tbody tr').nth(49).waitFor();
    assert.deepEqual(await ids(), [...first.runs, ...second.runs].map((r: Run) => r.id));

    // Failed runs only.
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForURL(/status=failed/);
    await settled(page);
    const failed = await api(`/api/v1/projects/${projectId}/runs?limit=25&status=failed`);
    assert.ok(failed.runs.length > 0, 'the demo has failed runs');
    assert.deepEqual(await ids(), failed.runs.map((r: Run) => r.id));
    assert.equal(await page.locator('#runs tbody tr:not([data-status="failed"])').count(), 0);

    // A prompt's recent answers, opened in place.
    const { prompts } = await api(`/api/v1/projects/${projectId}/prompts`);
    const prompt = prompts[0];
    await page.locator(`details[data-prompt-id="${prompt.id}"] summary`).click();
    await page.locator(`details[data-prompt-id="${prompt.id}"] li[data-run-id]`).first().waitFor();
    const recent = await api(`/api/v1/projects/${projectId}/runs?promptId=${prompt.id}&limit=5`);
    assert.deepEqual(
      await page.$$eval(`details[data-prompt-id="${prompt.id}"] li[data-run-id]`, (lis) => lis.map((li) => li.getAttribute('data-run-id'))),
      recent.runs.map((r: Run) => r.id),
    );

    // A chart point opens that day's runs (from = to = the day), under the same filters.
    await visit(page, `/projects/${projectId}`);
    const point = page.locator('#chart g.subject[data-subject-type="brand"] circle.point.solid').nth(3);
    const day = (await point.getAttribute('data-day'))!;
    await point.click({ force: true });
    await page.waitForURL((url) => url.pathname === `/projects/${projectId}/prompts` && url.searchParams.get('day') === day);
    await settled(page);
    assert.equal(await page.locator('#day-chip').isVisible(), true);
    const ofDay = await api(`/api/v1/projects/${projectId}/runs?from=${day}&to=${day}&limit=25`);
    assert.deepEqual(await ids(), ofDay.runs.map((r: Run) => r.id));
    assert.equal(await page.locator(`#runs tbody tr:not([data-day="${day}"])`).count(), 0);
    await context.close();
  });

  test("a run's page: the answer with the subjects it names marked, its citations, ads and provenance", async () => {
    const { context, page, api } = await open(OWNER);
    // A run with an answer naming two subjects (or one), and ads beside it: the demo's rival ads are
    // on branded prompts, one answer each (the change events say which day, prompt and engine).
    const { events } = await api(`/api/v1/projects/${projectId}/changes`);
    const [{ prompts }, { engines }] = await Promise.all([api(`/api/v1/projects/${projectId}/prompts`), api('/api/v1/engines')]);
    let run: RunDetail | undefined;
    for (const event of events.filter((e: { kind: string }) => e.kind === 'rival_ad_on_branded_prompt')) {
      const prompt = prompts.find((p: { text: string }) => p.text === event.detail.prompt);
      const engine = engines.find((e: { label: string }) => e.label === event.engineLabel);
      const { runs } = await api(`/api/v1/projects/${projectId}/runs?from=${event.day}&to=${event.day}&promptId=${prompt.id}&engineId=${engine.id}&status=ok`);
      for (const candidate of (runs as Run[]).filter((r) => r.mentions.length > 0)) {
        const detail = (await api(`/api/v1/projects/${projectId}/runs/${candidate.id}`)) as RunDetail;
        // The demo's data are random per project: the first with two subjects, else one.
        if (detail.ads.length && detail.answer && (!run || detail.mentions.length > run.mentions.length)) run = detail;
      }
      if (run && run.mentions.length >= 2) break;
    }
    assert.ok(run, 'the demo has an answered run naming a subject, with an ad');
    const promptText = prompts.find((p: { id: string }) => p.id === run!.promptId).text;

    await visit(page, `/projects/${projectId}/prompts?day=${run.day}&promptId=${run.promptId}`);
    await page.locator(`#runs tr[data-run-id="${run.id}"] a`).click();
    await page.waitForURL((url) => url.pathname === `/projects/${projectId}/runs/${run.id}`);
    await settled(page);
    assert.equal(await page.locator('h1').textContent(), promptText);

    // The answer is the API's text, unchanged; each subject the run names is marked, and only those.
    assert.equal(await page.locator('#answer').textContent(), run.answer);
    const [{ projects }, { competitors }] = await Promise.all([api('/app/api/projects'), api(`/app/api/projects/${projectId}/competitors`)]);
    const terms = new Map<string, string[]>(
      [...projects.filter((p: { id: string }) => p.id === projectId), ...competitors].map((s: { id: string; name: string; domain: string; aliases: string[] }) => [s.id, [s.name, s.domain, ...s.aliases].map((t) => t.toLowerCase())]),
    );
    const marks = await page.$$eval('#answer mark', (ms) => ms.map((m) => ({ id: m.getAttribute('data-subject-id')!, type: m.className, text: m.textContent! })));
    assert.ok(marks.length >= run.mentions.length, 'at least one mark per subject named');
    for (const mention of run.mentions) assert.ok(marks.some((m) => m.id === mention.subjectId && m.type === mention.subjectType), `${mention.name} is marked as a ${mention.subjectType}`);
    for (const mark of marks) {
      assert.ok(run.mentions.some((m) => m.subjectId === mark.id), 'only subjects the run names are marked');
      assert.ok(terms.get(mark.id)!.includes(mark.text.toLowerCase()), `"${mark.text}" is a name, alias or domain of its subject`);
    }

    // Citations with status and domain, the ads, and how it was captured.
    assert.deepEqual(
      await page.$$eval('#citations tbody tr[data-status]', (trs) => trs.map((tr) => [tr.children[1]!.textContent, tr.children[2]!.textContent])),
      run.citations.map((c) => [c.domain, c.status]),
    );
    assert.deepEqual(await page.$$eval('#ads tbody th', (ths) => ths.map((th) => th.textContent)), run.ads.map((a) => a.advertiser));
    const facts = await page.$$eval('#provenance dt', (dts) => Object.fromEntries(dts.map((dt) => [dt.textContent!, dt.nextElementSibling!.textContent!])));
    assert.equal(facts.Provider, run.provider ?? 'not recorded');
    assert.equal(facts.Model, run.model ?? 'not recorded');
    assert.equal(facts.Run, run.id);
    await page.screenshot({ path: join(SCREENSHOTS, 'run.png'), fullPage: true });

    // Back to the runs, with the filters it came from.
    await page.getByRole('link', { name: '← All runs' }).click();
    await page.waitForURL((url) => url.pathname === `/projects/${projectId}/prompts` && url.searchParams.get('promptId') === run.promptId && url.searchParams.get('day') === run.day);
    await context.close();
  });

  test('settings: an owner adds a competitor, a prompt (the estimate follows), changes and removes it, adds a webhook and a member', async () => {
    const { context, page, api } = await open(OWNER, { refusals: [400] });
    await visit(page, `/projects/${projectId}/settings`);
    assert.equal(await page.locator('#read-only').isVisible(), false);

    // A competitor with its colour.
    await page.locator('#competitor-name').fill('Hooli');
    await page.locator('#competitor-domain').fill('hooli.example');
    await page.locator('#competitor-color').fill('#0e7490');
    await page.getByRole('button', { name: 'Add competitor' }).click();
    await page.locator('#competitors tr', { hasText: 'Hooli' }).waitFor();
    const { competitors } = await api(`/app/api/projects/${projectId}/competitors`);
    assert.equal(competitors.find((c: { name: string }) => c.name === 'Hooli').color, '#0e7490');
    // Its colour changed later, with the picker in its row: saved as it closes.
    await page.getByLabel('Colour of Hooli').fill('#be123c');
    await page.locator('#status', { hasText: 'Colour of Hooli: saved.' }).waitFor();
    assert.equal((await api(`/app/api/projects/${projectId}/competitors`)).competitors.find((c: { name: string }) => c.name === 'Hooli').color, '#be123c');
    // A colour stored short (#rgb, as the CLI takes it) is shown spelled out in the picker, not black.
    await database.db.updateTable('competitors').set({ color: '#1af' }).where('project_id', '=', projectId).where('name', '=', 'Hooli').execute();
    await visit(page, `/projects/${projectId}/settings`);
    assert.equal(await page.getByLabel('Colour of Hooli').inputValue(), '#11aaff');

    // A daily prompt on ChatGPT in two places: 30 x 2 checks a month, at ChatGPT's price.
    const before = (await api(`/app/api/projects/${projectId}/prompts`)).estimate;
    await page.getByLabel('Prompt', { exact: true }).fill('crm for dentists');
    await page.getByLabel('Topic', { exact: true }).fill('CRM software');
    await page.getByLabel('Locations (comma-separated)').fill('US, DE');
    await page.getByRole('checkbox', { name: 'ChatGPT' }).check();
    await page.getByRole('button', { name: 'Add prompt' }).click();
    const row = page.locator('#prompt-table tr', { hasText: 'crm for dentists' });
    await row.waitFor();
    const after = (await api(`/app/api/projects/${projectId}/prompts`)).estimate;
    assert.equal(after.checksPerMonth, before.checksPerMonth + 60);
    await page.locator('#estimate').filter({ hasText: `${after.checksPerMonth} checks, ${after.creditsPerMonth} credits, $${after.usdPerMonth.toFixed(2)} a month` }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-owner.png'), fullPage: true });

    // Changed to weekly, then removed (the button asks again).
    await row.getByRole('button', { name: 'Edit “crm for dentists”' }).click();
    await page.getByLabel('Cadence').selectOption('weekly');
    await page.getByRole('button', { name: 'Save prompt' }).click();
    await page.locator('#prompt-table tr', { hasText: 'crm for dentists' }).getByText('weekly').waitFor();
    const saved = (await api(`/app/api/projects/${projectId}/prompts`)).prompts.find((p: { text: string }) => p.text === 'crm for dentists');
    assert.deepEqual([saved.cadence, saved.locations, saved.engines, saved.topic], ['weekly', ['US', 'DE'], ['chatgpt'], 'CRM software']);
    const remove = page.locator('#prompt-table tr', { hasText: 'crm for dentists' }).getByRole('button', { name: 'Remove “crm for dentists”' });
    await remove.click();
    await page.getByRole('button', { name: 'Confirm removal: Remove “crm for dentists”' }).click();
    await page.locator('#prompt-table tr', { hasText: 'crm for dentists' }).waitFor({ state: 'detached' });
    assert.equal((await api(`/app/api/projects/${projectId}/prompts`)).prompts.some((p: { text: string }) => p.text === 'crm for dentists'), false);

    // A webhook: its secret shown once.
    await page.getByLabel('Address').fill('https://hooks.example.test/sightline');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('#webhook-secret:not([hidden])').waitFor();
    assert.match((await page.locator('#webhook-secret-value').textContent())!, /^whsec_/);
    await page.locator('#webhooks tr', { hasText: 'hooks.example.test' }).waitFor();

    // A member, who can sign in.
    await page.getByLabel('Email', { exact: true }).fill(`new.viewer-${RUN}@example.test`);
    await page.getByLabel('First password (10 or more characters)').fill('another long password');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.locator('#members tr', { hasText: `new.viewer-${RUN}@example.test` }).waitFor();
    // (From outside the browser: signing in here would replace the owner's session.)
    const signIn = await fetch(`${origin}/app/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `new.viewer-${RUN}@example.test`, password: 'another long password' }) });
    assert.equal(((await signIn.json()) as { data: { role: string } }).data.role, 'viewer');
    // Made an owner, then removed: the role as picked, the row gone.
    const newcomer = `new.viewer-${RUN}@example.test`;
    await page.getByLabel(`Role of ${newcomer}`).selectOption('owner');
    await page.locator('#status', { hasText: `${newcomer} is now an owner.` }).waitFor();
    assert.equal((await api('/app/api/members')).members.find((m: { email: string }) => m.email === newcomer).role, 'owner');
    await page.getByRole('button', { name: `Remove ${newcomer}` }).click();
    await page.getByRole('button', { name: `Confirm removal: Remove ${newcomer}` }).click();
    await page.locator('#members tr', { hasText: newcomer }).waitFor({ state: 'detached' });
    // The webhook removed too, asked twice.
    await page.getByRole('button', { name: 'Remove the webhook https://hooks.example.test/sightline' }).click();
    await page.getByRole('button', { name: 'Confirm removal: Remove the webhook https://hooks.example.test/sightline' }).click();
    await page.locator('#webhooks tr', { hasText: 'hooks.example.test' }).waitFor({ state: 'detached' });
    assert.deepEqual((await api('/app/api/webhooks')).webhooks, []);

    // What the service refuses is said in the form.
    await page.getByLabel('Address').fill('http://127.0.0.1/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('#webhook-form .form-error:not([hidden])').waitFor();
    assert.match((await page.locator('#webhook-form .form-error').textContent())!, /cannot receive webhooks/);
    await context.close();
  });

  test('a key created in the page works on the API, and stops once revoked in the page', async () => {
    const { context, page, api } = await open(OWNER);
    await visit(page, `/projects/${projectId}/settings`);
    await page.getByLabel('Name', { exact: true }).and(page.locator('#key-name')).fill('from the app');
    await page.getByLabel('Requests a minute').fill('120');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#key-secret:not([hidden])').waitFor();
    const key = (await page.locator('#key-secret-value').textContent())!;
    assert.match(key, /^sl_/);
    assert.match((await page.locator('#key-secret').textContent())!, /Copy it now: it is not shown again/);
    assert.equal(await page.locator('#copy-key').evaluate((button) => button === button.ownerDocument.activeElement), true, 'the copy button has the focus');
    const made = (await api('/app/api/keys')).keys.find((k: { name: string }) => k.name === 'from the app');
    assert.deepEqual([made.scopes, made.rateLimit, made.projectId], [['read'], 120, null]);
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-new-key.png') });

    // From outside any browser: a Bearer request with the new key.
    const read = () => fetch(`${origin}/api/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
    const ok = await read();
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { data: { projects: { id: string }[] } }).data.projects[0]!.id, projectId);

    const row = page.locator('#keys tr', { hasText: 'from the app' });
    await row.getByRole('button', { name: 'Revoke the key from the app' }).click();
    await page.getByRole('button', { name: 'Confirm revoking: Revoke the key from the app' }).click();
    await page.locator('#keys tr[data-revoked="true"]', { hasText: 'from the app' }).waitFor();
    const refused = await read();
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'unauthorized');
    await context.close();
  });

  test("a viewer sees the settings read-only, and the service refuses a viewer's change", async () => {
    const { context, page } = await open(VIEWER, { refusals: [403] });
    await visit(page, `/projects/${projectId}/settings`);
    assert.equal(await page.locator('#read-only').isVisible(), true);
    assert.equal(await page.locator('main form').count(), 0, 'no form to change anything');
    assert.equal(await page.locator('main button').count(), 0, 'no button to change anything');
    assert.ok((await page.locator('#keys tbody tr').count()) > 0, 'the keys are listed');
    assert.ok((await page.locator('#prompt-table tbody tr').count()) > 0, 'the prompts are listed');
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-viewer.png'), fullPage: true });

    // Forced from the page, with the session's CSRF token: refused all the same.
    const forced = await page.evaluate(async (id) => {
      const { data } = (await (await fetch('/app/session')).json()) as { data: { csrfToken: string } };
      const response = await fetch(`/app/api/projects/${id}/competitors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': data.csrfToken },
        body: JSON.stringify({ name: 'Forced', domain: 'forced.example' }),
      });
      return { status: response.status, body: (await response.json()) as { error: { code: string } } };
    }, projectId);
    assert.equal(forced.status, 403);
    assert.equal(forced.body.error.code, 'forbidden');
    await context.close();
  });

  test('a change without the CSRF token is refused, even with the cookie', async () => {
    const { context, page, api } = await open(OWNER, { refusals: [403] });
    await visit(page, `/projects/${projectId}/settings`);
    const attempt = (withToken: boolean) =>
      page.evaluate(
        async ({ id, withToken }) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (withToken) headers['x-csrf-token'] = ((await (await fetch('/app/session')).json()) as { data: { csrfToken: string } }).data.csrfToken;
          const response = await fetch(`/app/api/projects/${id}/competitors`, { method: 'POST', headers, body: JSON.stringify({ name: 'Csrf Inc', domain: 'csrf.example' }) });
          return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
        },
        { id: projectId, withToken },
      );
    const refused = await attempt(false);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
    assert.match(refused.body.error.message, /CSRF/);
    assert.equal((await api(`/app/api/projects/${projectId}/competitors`)).competitors.some((c: { name: string }) => c.name === 'Csrf Inc'), false, 'nothing was added');
    assert.equal((await attempt(true)).status, 200, 'the same request with the token is taken');
    await context.close();
  });

  test('a workspace without a project: the overview points to the settings, where the first project is created', async () => {
    const { context, page } = await open(NEWCOMER);
    await visit(page, '/');
    await page.locator('#no-project').waitFor();
    const nav = page.getByRole('navigation', { name: 'Pages' });
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Settings'], 'only the settings until there is a project');
    await page.getByRole('link', { name: 'create one in the settings' }).click();
    await page.waitForURL(`${origin}/settings`);
    await settled(page);
    assert.equal(await page.locator('[data-project-section]:visible').count(), 0, 'no competitors or prompts without a project');
    await page.getByLabel('Brand name').fill('Pied Piper');
    await page.locator('#project-domain').fill('piedpiper.example');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}\/settings$/);
    await settled(page);
    assert.equal(await page.locator('#competitors-title').textContent(), 'Competitors of Pied Piper');
    assert.equal(await page.locator('#project option:checked').textContent(), 'Pied Piper', 'the picker has it');
    await context.close();
  });

  test('an owner does in the page what the CLI does: imports runs, samples, verifies, sets the controls, grants credits, makes a workspace, adds the demo, switches back', async () => {
    const { context, page, api } = await open(OPERATOR);
    const { projectId: opsProject, workspaceId: opsWorkspace } = operator;
    await visit(page, `/projects/${opsProject}/settings`);
    assert.equal(await page.locator('#workspace-pick').isVisible(), false, 'one workspace: no switcher');
    const providers = await cells(page, '#providers');
    assert.deepEqual(providers[0], ['ChatGPT', 'openai', 'gpt-5-mini', 'no key: its checks are skipped']);

    // `runs import`: a file of two runs and a line that is no JSON.
    const day = utcDay(new Date(Date.now() - 86_400_000));
    const record = (id: string, hour: string) =>
      JSON.stringify({ id, engine: 'perplexity', prompt: 'best tps report software', ranAt: `${day}T${hour}:00:00Z`, status: 'ok', mentions: [{ subject: 'Initech' }], citations: [{ url: 'https://initech.example/tps' }] });
    const file = [record('0b7c1f5e-3a52-4d8e-9a0f-6e2d1c4b7a90', '08'), 'not json', record('5d2e9c1a-7b3f-4e60-8c1d-2a9f0e7b6c31', '09')].join('\n');
    await page.locator('#import-file').setInputFiles({ name: 'runs.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(file) });
    await page.getByRole('button', { name: 'Import runs' }).click();
    await page.locator('#import-result:not([hidden])').waitFor();
    assert.equal(await page.locator('#import-summary').textContent(), 'runs.jsonl: 2 imported, 0 already imported, 1 rejected.');
    assert.deepEqual(await page.locator('#import-errors li').allTextContents(), ['line 2: not valid JSON']);
    assert.equal((await api(`/api/v1/projects/${opsProject}/runs?status=ok`)).runs.length, 2);

    // `sample` (the prompt's engine has no key here: skipped, never charged) and `verify --wait`.
    await page.getByRole('button', { name: 'Ask the engines now' }).click();
    await page.locator('#collect-result', { hasText: 'in this cycle' }).waitFor();
    assert.match((await page.locator('#collect-result').textContent())!, /^1 check in this cycle: 0 queued for the engines, 1 skipped/);
    await page.getByRole('button', { name: 'Check cited pages now' }).click();
    await page.locator('#collect-result', { hasText: 'Checked' }).waitFor();
    assert.equal(await page.locator('#collect-result').textContent(), 'Checked 1 cited page: 0 verified, 0 stale, 0 broken, 0 hallucinated, 1 still unchecked.');

    // `workspace update` and `credits grant`.
    await page.locator('#controls-plan').selectOption('enterprise');
    await page.locator('#controls-ceiling').fill('75');
    await page.locator('#controls-enforced').check();
    await page.getByRole('button', { name: 'Save controls' }).click();
    await page.locator('#workspace', { hasText: 'enterprise plan' }).waitFor();
    assert.deepEqual(await api('/app/api/workspace'), { id: opsWorkspace, plan: 'enterprise', apiAccess: null, creditsEnforced: true, dailyCeilingUsd: 75 });
    await page.locator('#grant-credits').fill('40');
    await page.locator('#grant-note').fill('pilot');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.locator('#credits [data-credit="granted"] strong', { hasText: '40' }).waitFor();
    assert.equal((await api('/app/api/usage')).credits.granted, 40);
    await page.screenshot({ path: join(SCREENSHOTS, 'settings-workspace.png'), fullPage: true });

    // `workspace create`, then `demo` into it: the page moves to the new workspace's settings.
    await page.locator('#workspace-name').fill(`Agency ${RUN}`);
    await page.getByRole('button', { name: 'Create and switch to it' }).click();
    await page.waitForURL(`${origin}/settings`);
    await settled(page);
    await page.locator('#workspace', { hasText: `Agency ${RUN}: starter plan` }).waitFor();
    assert.equal(await page.locator('#workspace-pick').isVisible(), true, 'two workspaces: the switcher');
    await page.getByRole('button', { name: 'Add the demo project' }).click();
    await page.locator('#demo-secret:not([hidden])').waitFor();
    assert.match((await page.locator('#demo-secret-value').textContent())!, /^read key: +sl_\S+\ningest key: sl_\S+$/);
    await page.locator('#projects tr', { hasText: 'Acme CRM' }).waitFor();
    assert.equal(await page.locator('#project').isDisabled(), false, 'the picker offers the new project');
    assert.deepEqual(await page.locator('#project option').allTextContents(), ['Acme CRM']);

    // Back to the first workspace through the switcher in the top bar.
    await page.locator('#workspace-choice').selectOption(opsWorkspace);
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.waitForURL(`${origin}/`);
    await settled(page);
    assert.equal(await page.locator('#project option:checked').textContent(), 'Initech');
    assert.equal((await api('/app/session')).workspaceId, opsWorkspace);
    await context.close();
  });

  test('the sampling plan on the prompts page says what the planner answers, for the move picked', async () => {
    const { context, page, api } = await open(OWNER);
    await visit(page, `/projects/${projectId}/prompts`);
    for (const delta of [20, 10]) {
      if (delta !== 20) await page.getByLabel('A visibility move to see').selectOption(String(delta));
      const plan = await api(`/api/v1/projects/${projectId}/plan?delta=${delta}`);
      const text = page.locator('#plan-text', { hasText: `move of ${delta} points` });
      await text.waitFor();
      const said = (await text.textContent())!;
      assert.ok(said.includes(`visibility of ${plan.visibility.toFixed(2)}% (n = ${plan.sampleSize.toLocaleString('en')})`), said);
      if (plan.runsPerDay === null) assert.match(said, /no number of runs a day/);
      else assert.ok(said.includes(`has ${plan.runsPerDay.toLocaleString('en')} completed runs`), said);
    }
    await page.locator('#plan-title').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'prompts-plan.png') });
    await context.close();
  });

  test('on a phone every page fits the screen', async () => {
    const { context, page, api } = await open(OWNER, { viewport: { width: 390, height: 844 } });
    const { runs } = await api(`/api/v1/projects/${projectId}/runs?status=ok&limit=1`);
    for (const [name, path] of [
      ['citations', '/citations'],
      ['changes', '/changes'],
      ['traffic', '/traffic'],
      ['prompts', '/prompts'],
      ['run', `/runs/${runs[0].id}`],
      ['settings', '/settings'],
    ]) {
      await visit(page, `/projects/${projectId}${path}`);
      const overflow = await page.$eval('html', (html) => html.scrollWidth - html.clientWidth);
      assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px`);
      if (name === 'run' || name === 'prompts') await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
    }
    await context.close();
  });

  test('no request left the origin and the console stayed clean', () => {
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(consoleErrors, []);
  });
});
