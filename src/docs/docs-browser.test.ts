/**
 * The reference in a real headless Chromium (Debian's, never a downloaded one), from a listening
 * service: it renders the operations, asks nothing of another origin, logs no error (a policy
 * violation is one), and "try it" with the demo read key answers the demo's projects.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Browser, type Page } from 'playwright-core';
import { buildApp } from '../app.ts';
import { createUser } from '../accounts/create-user.ts';
import type { Database } from '../db/database.ts';
import { seedDemo, type DemoSeed } from '../demo/seed-demo.ts';
import { openTestDatabase } from '../../test/helpers.ts';
import { chromiumSkip, launchChromium } from '../../test/chromium.ts';


describe('/docs in Chromium', { skip: chromiumSkip }, () => {
  let database: Database;
  let app: FastifyInstance;
  let browser: Browser;
  let origin: string;
  let demo: DemoSeed;

  before(async () => {
    database = await openTestDatabase();
    demo = await seedDemo(database.db);
    app = await buildApp({ db: database.db });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await database?.close();
  });

  /** Opens /docs, recording every request's origin and every console error or page error. */
  async function open(): Promise<{ page: Page; origins: Set<string>; errors: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const origins = new Set<string>();
    const errors: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:') origins.add(url.origin);
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    await page.goto(`${origin}/docs`);
    await page.locator('.opblock').first().waitFor();
    await page.waitForLoadState('networkidle');
    return { page, origins, errors, close: () => context.close() };
  }

  test('renders every tag and operation, with nothing from another origin and no error', async () => {
    const { page, origins, errors, close } = await open();
    try {
      assert.deepEqual([...origins], [origin], 'every request went to the service');
      assert.deepEqual(errors, []);
      assert.equal(await page.locator('.info .title').first().innerText().then((t) => t.startsWith('Sightline API')), true);
      const document = (await (await fetch(`${origin}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
      assert.equal(await page.locator('.opblock').count(), operations, 'every operation is on the page');
      for (const tag of ['projects', 'analytics', 'traffic', 'management']) {
        assert.equal(await page.locator(`.opblock-tag[data-tag="${tag}"]`).count(), 1, tag);
      }
      assert.match(await page.locator('.servers select, .servers').first().innerText(), new RegExp(origin.replace(/[.:/]/g, '\\$&')));
    } finally {
      await close();
    }
  });

  test('an operation shows its recorded example; "try it" with the demo read key lists the demo project', async () => {
    const { page, origins, errors, close } = await open();
    try {
      await page.locator('#operations-projects-get_api_v1_projects .opblock-summary').click();
      const block = page.locator('#operations-projects-get_api_v1_projects');
      assert.match(await block.locator('.responses-wrapper').innerText(), /Acme CRM/, 'the example answer');

      await page.locator('.auth-wrapper .authorize').click();
      const bearer = page.locator('.modal-ux form').filter({ hasText: 'bearerAuth' });
      await bearer.locator('input').fill(demo.keys.read);
      await bearer.locator('.auth-btn-wrapper .authorize').click();
      await page.locator('.modal-ux .btn-done').first().click();

      await block.locator('.try-out__btn').click();
      await block.locator('.execute').click();
      const live = block.locator('.live-responses-table .response .response-col_status').first();
      await live.waitFor();
      assert.equal((await live.innerText()).trim(), '200');
      const body = await block.locator('.live-responses-table .response-col_description .microlight, .live-responses-table .response-col_description pre').first().innerText();
      assert.match(body, new RegExp(demo.projectId));
      assert.deepEqual([...origins], [origin]);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  test('"try it" on the management API uses the session the browser signed in with', async () => {
    await createUser(database.db, { workspaceId: demo.workspaceId, email: 'docs-reader@acme.com', password: 'a-long-docs-password', role: 'viewer' });
    const { page, origins, errors, close } = await open();
    try {
      // Signed in the way the app's page does: the cookie lands in this browser, and "try it" sends it.
      const signIn = await page.request.post(`${origin}/app/session`, { data: { email: 'docs-reader@acme.com', password: 'a-long-docs-password' } });
      assert.equal(signIn.status(), 200);
      const block = page.locator('#operations-management-get_app_api_projects');
      await block.locator('.opblock-summary').click();
      await block.locator('.try-out__btn').click();
      await block.locator('.execute').click();
      const live = block.locator('.live-responses-table .response .response-col_status').first();
      await live.waitFor();
      assert.equal((await live.innerText()).trim(), '200');
      assert.deepEqual([...origins], [origin]);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
