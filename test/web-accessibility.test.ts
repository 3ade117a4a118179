/**
 * Accessibility of every page of the web app, checked by axe-core in a real headless Chromium
 * (Debian's), on the demo data: the sign-in page; as an owner the overview (also at a phone's
 * width), citations, changes, traffic, prompts, a run, and the settings (the workspace's and a
 * project's); as a viewer the read-only settings; and the API reference at /docs. The rules are
 * axe's WCAG 2.0 and 2.1 A and AA ones. A serious or critical violation on one of our pages fails
 * its test, with a message that says what to fix and where; lesser ones are reported in the test
 * output (t.diagnostic). /docs is Swagger UI, a third party's: its colours and its unlabelled server
 * choice are fixed by src/docs/public/docs.css and docs.js, and it is held to the same rule, but for
 * its operation headers (a button holding a button: its markup), which are reported only.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AxeResults, RunOptions } from 'axe-core';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { createUser } from '../src/accounts/create-user.ts';
import type { Database } from '../src/db/database.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { openTestDatabase } from './helpers.ts';
import { ROOT } from './processes.ts';
import { chromiumSkip, launchChromium } from './chromium.ts';

/** People are one per email across workspaces: on a server database shared by the suites, each run's are its own. */
const RUN = Math.random().toString(36).slice(2, 8);

const PASSWORD = 'a long enough password';
const OWNER = `a11y-owner-${RUN}@example.test`;
const VIEWER = `a11y-viewer-${RUN}@example.test`;

/**
 * axe-core's browser bundle, put into each page with `page.evaluate(AXE_SOURCE)`. The pages send
 * `Content-Security-Policy: default-src 'self'`, which would refuse a `<script>` tag with this text;
 * an evaluation through the DevTools protocol is not subject to the page's policy. That keeps the
 * policy in force for everything the page itself does (rather than `bypassCSP: true` on the
 * context, which would switch it off for the page too): what axe sees is what a user gets.
 */
const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const AXE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'axe-core', 'package.json'), 'utf8')) as { version: string }).version;
/** WCAG 2.0 and 2.1, levels A and AA. */
const AXE_OPTIONS: RunOptions = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } };
const BLOCKING = new Set(['serious', 'critical']);
/** How many of a violation's elements the message shows. */
const SHOWN = 3;

interface Violation {
  id: string;
  impact: string | null;
  description: string;
  help: string;
  helpUrl: string;
  nodes: { target: string; html: string; failureSummary: string }[];
}

/**
 * Injects axe (once per document) and runs it on the whole document, as plain data: its violations,
 * and what it could not decide ("incomplete": to be looked at by a person), with axe's reason.
 */
async function audit(page: Page): Promise<{ violations: Violation[]; incomplete: Violation[]; passes: number }> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (options) => {
    // (The tests are typed without the DOM library: the page's globals are named here.)
    const { axe, document } = globalThis as unknown as { axe: { run: (context: unknown, options: RunOptions) => Promise<AxeResults> }; document: unknown };
    const results = await axe.run(document, options);
    const plain = (results: AxeResults['violations']) =>
      results.map((v) => ({
        id: v.id,
        impact: v.impact ?? null,
        description: v.description,
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: v.nodes.map((n) => ({
          target: n.target.map(String).join(' >>> '),
          html: n.html,
          failureSummary: n.failureSummary ?? [...n.any, ...n.all, ...n.none].map((c) => c.message).join('\n'),
        })),
      }));
    return { violations: plain(results.violations), incomplete: plain(results.incomplete), passes: results.passes.length };
  }, AXE_OPTIONS);
}

/** Each violation: rule, impact, what it asks, and its first elements (selector, markup, why). */
function describeViolations(violations: Violation[]): string {
  return violations
    .map((v) => {
      const nodes = v.nodes.slice(0, SHOWN).map((n) => {
        const why = n.failureSummary.split('\n').map((line) => `        ${line.trim()}`).join('\n');
        return `    - ${n.target}\n      ${n.html.replace(/\s+/g, ' ')}\n${why}`;
      });
      if (v.nodes.length > SHOWN) nodes.push(`    … and ${v.nodes.length - SHOWN} more element(s)`);
      return `  ${v.id} (${v.impact}): ${v.help}. ${v.description}\n    ${v.helpUrl}\n${nodes.join('\n')}`;
    })
    .join('\n');
}

/** Audits the page as it is now: fails on a serious or critical violation not `allowed`; reports the rest. */
async function check(t: TestContext, page: Page, label: string, options: { allowed?: Record<string, string> } = {}) {
  const { violations, incomplete, passes } = await audit(page);
  // No rule passing means axe looked at nothing (an empty or unrendered page): no finding would be no news.
  assert.ok(passes > 0, `${label}: no axe rule applied to the page`);
  if (incomplete.length > 0) t.diagnostic(`${label}: ${incomplete.length} rule(s) axe could not decide (needs review, not failing):\n${describeViolations(incomplete)}`);
  const allowed = options.allowed ?? {};
  const blocking = violations.filter((v) => BLOCKING.has(v.impact ?? '') && !(v.id in allowed));
  const reported = violations.filter((v) => !blocking.includes(v));
  for (const v of reported) t.diagnostic(`${label}: not failing (${allowed[v.id] ?? 'below serious'}):\n${describeViolations([v])}`);
  assert.equal(
    blocking.length,
    0,
    `${label}: ${blocking.length} serious or critical accessibility violation(s) (axe-core ${AXE_VERSION}, WCAG 2.0/2.1 A and AA):\n${describeViolations(blocking)}`,
  );
}

describe('the web app is accessible (axe-core, WCAG 2.1 A/AA) in Chromium', { skip: chromiumSkip }, () => {
  let database: Database;
  let app: FastifyInstance;
  let browser: Browser;
  let origin: string;
  let projectId: string;
  let runId: string;
  let owner: BrowserContext;
  let viewer: BrowserContext;

  before(async () => {
    database = await openTestDatabase();
    const [seed, launched] = await Promise.all([seedDemo(database.db), launchChromium()]);
    browser = launched;
    projectId = seed.projectId;
    await createUser(database.db, { workspaceId: seed.workspaceId, email: OWNER, password: PASSWORD, role: 'owner' });
    await createUser(database.db, { workspaceId: seed.workspaceId, email: VIEWER, password: PASSWORD, role: 'viewer' });
    app = await buildApp({ db: database.db, configuredEngines: ['chatgpt', 'perplexity'] });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    [owner, viewer] = await Promise.all([signedIn(OWNER), signedIn(VIEWER)]);
    const runs = await owner.request.get(`${origin}/api/v1/projects/${projectId}/runs?status=ok&limit=1`);
    assert.equal(runs.status(), 200, await runs.text());
    runId = ((await runs.json()) as { data: { runs: { id: string }[] } }).data.runs[0]!.id;
  });
  after(async () => {
    await owner?.close();
    await viewer?.close();
    await browser?.close();
    await app?.close();
    await database?.close();
  });

  /** A browser profile signed in as `email`, through the API as the sign-in page does. */
  async function signedIn(email: string, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport });
    const response = await context.request.post(`${origin}/app/session`, { data: { email, password: PASSWORD } });
    assert.equal(response.status(), 200, await response.text());
    return context;
  }

  /** Opens an app page in `context` and waits until it has drawn what it shows (and the requests it made are answered). */
  async function openPage(context: BrowserContext, path: string): Promise<Page> {
    const page = await context.newPage();
    const response = await page.goto(`${origin}${path}`);
    assert.equal(response?.status(), 200, path);
    await page.waitForSelector('main:not([aria-busy])');
    await page.waitForLoadState('networkidle');
    // Without a live session every address answers the sign-in page, whose <main> is never busy.
    assert.equal(await page.locator('#sign-in').count(), 0, `${path} showed the sign-in page: the session did not take`);
    return page;
  }

  test('the check itself: a field without a label, put into the sign-in page, fails with a message naming it', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await page.locator('#sign-in').waitFor();
      await page.locator('#sign-in').evaluate((form) => form.append(Object.assign(form.ownerDocument.createElement('input'), { id: 'unlabelled' })));
      const failure = await check({ diagnostic: () => undefined } as unknown as TestContext, page, 'self-check').then(() => undefined, (error: Error) => error);
      assert.ok(failure instanceof assert.AssertionError, 'the violation fails the check');
      assert.match(failure.message, /^self-check: 1 serious or critical/);
      assert.match(failure.message, /label \(critical\): Form elements must have labels\./);
      assert.match(failure.message, /- #unlabelled\n +<input id="unlabelled">\n +Fix any of the following:/);
    } finally {
      await context.close();
    }
  });

  test('the sign-in page', async (t) => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await page.locator('#sign-in').waitFor();
      await page.waitForLoadState('networkidle');
      await check(t, page, '/ (sign-in)');
    } finally {
      await context.close();
    }
  });

  for (const [name, path] of [
    ['the overview', ''],
    ['citations', '/citations'],
    ['changes', '/changes'],
    ['traffic', '/traffic'],
    ['prompts', '/prompts'],
    ['a run', '/runs/:runId'],
    ["a project's settings", '/settings'],
  ] as const) {
    test(`${name}, as an owner`, async (t) => {
      const address = `/projects/${projectId}${path.replace(':runId', runId)}`;
      const page = await openPage(owner, address);
      try {
        await check(t, page, address);
      } finally {
        await page.close();
      }
    });
  }

  test("the workspace's settings (/settings), as an owner", async (t) => {
    const page = await openPage(owner, '/settings');
    try {
      await check(t, page, '/settings');
    } finally {
      await page.close();
    }
  });

  test("a project's settings, as a viewer (read-only)", async (t) => {
    const page = await openPage(viewer, `/projects/${projectId}/settings`);
    try {
      await page.locator('#read-only').waitFor();
      await check(t, page, `/projects/${projectId}/settings (viewer)`);
    } finally {
      await page.close();
    }
  });

  test('the overview on a phone (390x844)', async (t) => {
    const phone = await signedIn(OWNER, { width: 390, height: 844 });
    try {
      const page = await openPage(phone, `/projects/${projectId}`);
      await check(t, page, `/projects/${projectId} (390x844)`);
    } finally {
      await phone.close();
    }
  });

  test('the API reference (/docs, Swagger UI, its colours and server choice fixed by docs.css and docs.js)', async (t) => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/docs`);
      // Swagger UI has rendered the document once its operations are listed.
      await page.locator('#swagger-ui .opblock').first().waitFor();
      await page.waitForLoadState('networkidle');
      // Swagger UI's markup, which a stylesheet cannot change: each operation's header is a button holding the copy-path button.
      await check(t, page, '/docs (Swagger UI)', { allowed: { 'nested-interactive': "Swagger UI's operation header: a button with a copy button inside (its markup, not ours)" } });
    } finally {
      await context.close();
    }
  });
});
