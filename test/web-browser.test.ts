/**
 * The app in a real headless Chromium (Debian's, never a downloaded one), on the demo data: signing
 * in (wrong and right password), the overview's chart checked point by point against the API's
 * timeseries, the range switch and a filter, signing out. Every request stays on the service's
 * origin and the console stays clean. Screenshots land in .tmp/screenshots/ (gitignored).
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
import { createProject } from '../src/projects/create-project.ts';
import { openTestDatabase } from './helpers.ts';
import { ROOT } from './processes.ts';
import { chromiumSkip, launchChromium } from './chromium.ts';

/** People are one per email across workspaces: on a server database shared by the suites, each run's are its own. */
const RUN = Math.random().toString(36).slice(2, 8);


const SCREENSHOTS = join(ROOT, '.tmp', 'screenshots');
const EMAIL = `owner-${RUN}@example.test`;
const PASSWORD = 'a long enough password';

interface Point {
  day: string;
  sampleSize: number;
  mentionRuns: number;
  visibility: number | null;
  ciLow: number;
  ciHigh: number;
}

interface DrawnPoint {
  day: string;
  hollow: boolean;
  visibility: string;
  ciLow: number;
  ciHigh: number;
  sampleSize: number;
  cx: number;
  cy: number;
}

interface Plot {
  left: number;
  top: number;
  width: number;
  height: number;
  days: number;
}

/** The app with the web plugin: registered here only while src/app.ts does not register it yet. */
async function webApp(database: Database): Promise<FastifyInstance> {
  const app = await buildApp({ db: database.db });
  await app.ready();
  return app;
}

describe('the app in Chromium', { skip: chromiumSkip }, () => {
  let database: Database;
  let app: FastifyInstance;
  let browser: Browser;
  let origin: string;
  let projectId: string;
  let emptyProjectId: string;
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
    await createUser(database.db, { workspaceId: seed.workspaceId, email: EMAIL, password: PASSWORD, role: 'owner' });
    emptyProjectId = (await createProject(database.db, seed.workspaceId, { name: 'Quiet brand', domain: 'quiet.test' })).id;
    app = await webApp(database);
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await database?.close();
  });

  /** A fresh browser profile whose requests and console are watched. */
  async function open(options: { viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== origin) elsewhere.push(request.url());
    });
    page.on('console', (message) => {
      // A wrong password is a 401 answer by design, which Chromium reports as a failed resource.
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    return { context, page };
  }

  async function signIn(page: Page, password: string) {
    await page.goto(`${origin}/`);
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function drawn(page: Page, subjectType: 'brand' | 'competitor', subjectId?: string): Promise<{ plot: Plot; points: DrawnPoint[] }> {
    const plot = await page.$eval('#chart svg', (svg) => ({
      left: Number(svg.getAttribute('data-plot-left')),
      top: Number(svg.getAttribute('data-plot-top')),
      width: Number(svg.getAttribute('data-plot-width')),
      height: Number(svg.getAttribute('data-plot-height')),
      days: Number(svg.getAttribute('data-days')),
    }));
    const selector = subjectId ? `#chart g.subject[data-subject-id="${subjectId}"] circle.point` : `#chart g.subject[data-subject-type="${subjectType}"] circle.point`;
    const points = await page.$$eval(selector, (circles) =>
      circles.map((c) => ({
        day: c.getAttribute('data-day')!,
        hollow: c.classList.contains('hollow'),
        visibility: c.getAttribute('data-visibility')!,
        ciLow: Number(c.getAttribute('data-ci-low')),
        ciHigh: Number(c.getAttribute('data-ci-high')),
        sampleSize: Number(c.getAttribute('data-sample-size')),
        cx: Number(c.getAttribute('cx')),
        cy: Number(c.getAttribute('cy')),
      })),
    );
    return { plot, points };
  }

  /** The chart's points for a subject are the API's series: one per sampled day, in place, hollow exactly under 5 runs. */
  function assertMatches(series: Point[], plot: Plot, points: DrawnPoint[]) {
    assert.equal(plot.days, series.length, 'one x position per day of the range');
    const sampled = series.filter((p) => p.sampleSize > 0);
    assert.deepEqual(points.map((p) => p.day), sampled.map((p) => p.day), 'a point on every sampled day and on no other');
    const step = plot.width / (series.length - 1);
    for (const point of points) {
      const i = series.findIndex((p) => p.day === point.day);
      const api = series[i]!;
      assert.equal(point.hollow, api.sampleSize < 5, `${point.day}: hollow exactly on days of 1-4 runs`);
      assert.equal(point.visibility, api.visibility === null ? '' : String(api.visibility));
      assert.equal(point.ciLow, api.ciLow);
      assert.equal(point.ciHigh, api.ciHigh);
      assert.equal(point.sampleSize, api.sampleSize);
      const value = api.visibility ?? (100 * api.mentionRuns) / api.sampleSize;
      assert.ok(Math.abs(point.cy - (plot.top + ((100 - value) / 100) * plot.height)) < 0.01, `${point.day}: y is ${value}% on a fixed 0-100 axis`);
      assert.ok(Math.abs(point.cx - (plot.left + i * step)) < 0.01, `${point.day}: x is day ${i} of the range`);
    }
  }

  /** The chart marks exactly the visibility changes of the series it shows (all engines: engineLabel null). */
  async function assertMarked(page: Page, events: { kind: string; day: string; summary: string; engineLabel: string | null }[], engineLabel: string | null) {
    const expected = events.filter((e) => e.kind.startsWith('visibility_') && e.engineLabel === engineLabel);
    const marked = await page.$$eval('#chart g.event', (gs) => gs.map((g) => ({ day: g.getAttribute('data-day')!, kind: g.getAttribute('data-kind')!, title: g.querySelector('title')!.textContent!, tab: g.getAttribute('tabindex') })));
    const key = (e: { day: string; kind: string; summary: string }) => `${e.day} ${e.kind} ${e.summary}`;
    assert.deepEqual(marked.map((m) => key({ ...m, summary: m.title })).sort(), expected.map(key).sort());
    assert.ok(marked.every((m) => m.tab === '0'), 'each mark takes the keyboard focus');
    return expected.length;
  }

  // The form posts itself and the service answers with redirects: a refusal is no failed request,
  // so the console stays clean even then (the suite's last test checks it).
  test('a wrong password shows an error and stays on the sign-in page, the console clean', async () => {
    const { context, page } = await open();
    await signIn(page, 'not the password at all');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal((await alert.textContent())?.trim(), 'Wrong email or password.');
    assert.equal(new URL(page.url()).pathname, '/');
    assert.equal(new URL(page.url()).search, '', 'the reason read, the address is clean again');
    assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '');
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in-wrong-password.png') });
    // Another try from there signs in.
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/projects/${projectId}`);
    await context.close();
  });

  test('signing in opens the first project; the chart is the API, point by point; ranking and changes beside it', async () => {
    const { context, page } = await open();
    await page.goto(`${origin}/`);
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in.png') });
    await signIn(page, PASSWORD);
    await page.waitForURL(`${origin}/projects/${projectId}`);
    await page.locator('#chart circle.point').first().waitFor();
    await page.locator('#ranking tbody tr').first().waitFor();
    assert.equal(await page.locator('h1').textContent(), 'Acme CRM');

    const api = async (path: string) => (await (await context.request.get(`${origin}${path}`)).json()).data;
    const brand = (await api(`/api/v1/projects/${projectId}/visibility/timeseries`)).series as Point[];
    assert.equal(brand.length, 28);
    assert.ok(brand.some((p) => p.sampleSize === 0), 'the demo has an unsampled day');
    assert.ok(brand.some((p) => p.sampleSize > 0 && p.sampleSize < 5), 'the demo has days under 5 runs');
    const { plot, points } = await drawn(page, 'brand');
    assertMatches(brand, plot, points);

    // The brand's band covers each stretch of sampled days, and nothing else.
    const bandDays = (await page.$$eval('#chart g.subject[data-subject-type="brand"] .band', (bands) => bands.map((b) => b.getAttribute('data-days')!))).flatMap((d) => d.split(' '));
    assert.deepEqual(bandDays, brand.filter((p) => p.sampleSize > 0).map((p) => p.day));

    const { rows } = await api(`/api/v1/projects/${projectId}/visibility/ranking`);
    for (const row of rows.filter((r: { subjectType: string }) => r.subjectType === 'competitor')) {
      const series = (await api(`/api/v1/projects/${projectId}/visibility/timeseries?subjectType=competitor&subjectId=${row.subjectId}`)).series as Point[];
      const competitor = await drawn(page, 'competitor', row.subjectId);
      assertMatches(series, competitor.plot, competitor.points);
      assert.equal(await page.$eval(`#chart g.subject[data-subject-id="${row.subjectId}"] circle.point.solid`, (c) => c.getAttribute('fill')), row.color, 'in its colour');
    }

    // The ranking table: a row per subject, in the API's order, with n, visibility, interval and sentiment's n.
    const table = await page.$$eval('#ranking tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent!.trim())));
    assert.equal(table.length, rows.length);
    // Every number as the API has it (two decimals), so what a person reads is what a client reads.
    rows.forEach((row: { name: string; sampleSize: number; visibility: number; ciLow: number; ciHigh: number; shareOfVoice: number | null; avgPosition: number | null; sentiment: number | null; sentimentCount: number }, i: number) => {
      const cells = table[i]!;
      assert.ok(cells[0]!.startsWith(row.name), cells[0]);
      assert.equal(cells[1], String(row.sampleSize));
      assert.equal(cells[2], `${row.visibility.toFixed(2)}%`);
      assert.equal(cells[3], `${row.ciLow.toFixed(2)}–${row.ciHigh.toFixed(2)}%`);
      assert.equal(cells[4], row.shareOfVoice === null ? '—' : `${row.shareOfVoice.toFixed(2)}%`);
      assert.equal(cells[5], row.avgPosition === null ? '—' : row.avgPosition.toFixed(2));
      assert.equal(cells[6], `${row.sentiment === null ? '—' : row.sentiment.toFixed(2)} (n=${row.sentimentCount})`);
    });

    // The all-engine visibility changes are marked at their day, with their summary.
    const { events } = await api(`/api/v1/projects/${projectId}/changes`);
    assert.ok((await assertMarked(page, events, null)) > 0, 'the demo has a significant change across all engines');

    await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });
    await context.close();
  });

  test('the range switch and a filter redraw from the API, and the address keeps them', async () => {
    const { context, page } = await open();
    await signIn(page, PASSWORD);
    await page.waitForURL(`${origin}/projects/${projectId}`);
    await page.locator('#chart circle.point').first().waitFor();
    const api = async (path: string) => (await (await context.request.get(`${origin}${path}`)).json()).data;
    const today = await page.$eval('meta[name="sightline-today"]', (m) => m.getAttribute('content')!);
    const dayBefore = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

    // 90 days: the two months before the demo are unsampled, so gaps, not points.
    // The range switch as a person and assistive technology reach it: radios named by their labels.
    await page.getByLabel('90 days', { exact: true }).check();
    await page.waitForURL(/range=90/);
    await page.waitForSelector('#chart svg[data-days="90"]');
    const long = (await api(`/api/v1/projects/${projectId}/visibility/timeseries?from=${dayBefore(89)}&to=${today}`)).series as Point[];
    const longDrawn = await drawn(page, 'brand');
    assertMatches(long, longDrawn.plot, longDrawn.points);

    // One engine over 7 days.
    const { engines } = await api('/api/v1/engines');
    const engine = engines[0];
    await page.getByRole('radio', { name: '7 days', exact: true }).check();
    await page.waitForSelector('#chart svg[data-days="7"]');
    await page.getByLabel('Engine', { exact: true }).selectOption(engine.id);
    await page.waitForURL(new RegExp(`engineId=${engine.id}`));
    await page.waitForSelector('main:not([aria-busy])');
    const short = (await api(`/api/v1/projects/${projectId}/visibility/timeseries?from=${dayBefore(6)}&to=${today}&engineId=${engine.id}`)).series as Point[];
    const shortDrawn = await drawn(page, 'brand');
    assertMatches(short, shortDrawn.plot, shortDrawn.points);
    await assertMarked(page, (await api(`/api/v1/projects/${projectId}/changes?from=${dayBefore(6)}&to=${today}`)).events, engine.label);
    await page.screenshot({ path: join(SCREENSHOTS, 'overview-7-days-one-engine.png'), fullPage: true });

    // A topic narrows the series below what changes are detected on: no marks, and a word why.
    const { topics } = await api(`/api/v1/projects/${projectId}/topics`);
    await page.getByLabel('Topic', { exact: true }).selectOption(topics[0].id);
    await page.waitForURL(new RegExp(`topicId=${topics[0].id}`));
    await page.waitForSelector('main:not([aria-busy])');
    assert.equal(await page.locator('#chart g.event').count(), 0);
    assert.match((await page.locator('#events').textContent())!, /clear those filters/);
    const topical = (await api(`/api/v1/projects/${projectId}/visibility/timeseries?from=${dayBefore(6)}&to=${today}&engineId=${engine.id}&topicId=${topics[0].id}`)).series as Point[];
    const topicalDrawn = await drawn(page, 'brand');
    assertMatches(topical, topicalDrawn.plot, topicalDrawn.points);

    // The address reopens the same view.
    await page.reload();
    await page.locator('#chart circle.point').first().waitFor();
    assert.equal(await page.getByLabel('Engine', { exact: true }).inputValue(), engine.id);
    assert.equal(await page.getByLabel('Topic', { exact: true }).inputValue(), topics[0].id);
    assert.equal(await page.locator('#range-7').isChecked(), true);
    await context.close();
  });

  test('a deep link survives signing in; a project without runs says so; the picker opens another project', async () => {
    const { context, page } = await open();
    await page.goto(`${origin}/projects/${emptyProjectId}`);
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#chart svg').waitFor();
    assert.equal(new URL(page.url()).pathname, `/projects/${emptyProjectId}`);
    assert.equal(await page.locator('h1').textContent(), 'Quiet brand');
    assert.equal(await page.locator('#chart circle.point').count(), 0);
    assert.equal(await page.locator('#chart .band').count(), 0);
    assert.equal((await page.locator('#chart .empty').textContent())?.trim(), 'No runs in this range for these filters.');
    await page.getByLabel('Project').selectOption(projectId);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.waitForURL(`${origin}/projects/${projectId}`);
    await page.locator('#chart circle.point').first().waitFor();
    await context.close();
  });

  test('on a phone the overview fits the screen; signing out returns to the sign-in page', async () => {
    const { context, page } = await open({ viewport: { width: 390, height: 844 } });
    await signIn(page, PASSWORD);
    await page.waitForURL(`${origin}/projects/${projectId}`);
    await page.locator('#chart circle.point').first().waitFor();
    const overflow = await page.$eval('html', (html) => html.scrollWidth - html.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    await page.screenshot({ path: join(SCREENSHOTS, 'overview-phone.png'), fullPage: true });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal((await context.request.get(`${origin}/app/session`)).status(), 401, 'the session is gone');
    await context.close();
  });

  test('no request left the origin and the console stayed clean', () => {
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(consoleErrors, []);
  });
});
