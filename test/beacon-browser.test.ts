/**
 * The snippet in a real headless Chromium (Debian's, never a downloaded one): a page on the brand's
 * site, served from another origin than the service, loads /api/beacon.js and its page view arrives.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Database } from '../src/db/database.ts';
import { createProject } from '../src/projects/create-project.ts';
import { createFixture, openTestDatabase, testApp } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: the browser tests cannot run in CI`);

describe('the beacon snippet in Chromium', { skip: available ? false : `${CHROMIUM} is not installed` }, () => {
  let database: Database;
  let app: FastifyInstance;
  let site: Server;
  let browser: Browser;
  let projectId: string;
  let servicePort: number;
  let sitePort: number;
  let pageHtml = '';

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db);
    await app.listen({ port: 0, host: '127.0.0.1' });
    servicePort = (app.server.address() as AddressInfo).port;
    const fx = await createFixture(database.db);
    projectId = (await createProject(database.db, fx.workspaceId, { name: 'Browser brand', domain: 'brand.test' })).id;
    site = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(pageHtml);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // The brand's site and the service are both on this machine, under names of their own.
        '--host-resolver-rules=MAP www.brand.test 127.0.0.1, MAP sightline.test 127.0.0.1',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await app?.close();
    await database?.close();
  });

  /** AI visits stored for the brand, all days, pages and platforms. */
  const visits = async () =>
    Number(
      (await database.db.selectFrom('traffic_daily').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('hits'), eb.lit(0)).as('n')).where('project_id', '=', projectId).where('kind', '=', 'visit').executeTakeFirstOrThrow()).n,
    );

  async function load(attributes: string, init?: (page: Page) => Promise<unknown>) {
    pageHtml = `<!doctype html><html><head><title>Brand</title>
      <script src="http://sightline.test:${servicePort}/api/beacon.js" ${attributes}></script>
      </head><body>Hello</body></html>`;
    const context = await browser.newContext();
    const page = await context.newPage();
    const logs: string[] = [];
    page.on('console', (message) => logs.push(message.text()));
    if (init) await init(page);
    const before = await visits();
    await page.goto(`http://www.brand.test:${sitePort}/pricing`, { referer: 'https://chatgpt.com/' });
    await page.waitForLoadState('networkidle');
    // sendBeacon is fire-and-forget: give it a moment to land.
    let count = before;
    for (let i = 0; i < 30 && count === before; i++) {
      await sleep(100);
      count = await visits();
    }
    await context.close();
    return { added: count - before, logs };
  }

  test('an AI-referred page view arrives, from the service host the script was loaded from', async () => {
    const { added } = await load(`data-project="${projectId}"`);
    assert.equal(added, 1);
    const rows = await database.db.selectFrom('traffic_daily').selectAll().where('project_id', '=', projectId).execute();
    assert.deepEqual(rows.map((r) => [r.kind, r.platform, r.bot, r.path, r.hits]), [['visit', 'openai', '', '/pricing', 1]]);
  });

  test('Global Privacy Control and DNT: 1 send nothing', async () => {
    const gpc = await load(`data-project="${projectId}"`, (page) =>
      page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true })),
    );
    assert.equal(gpc.added, 0);
    const dnt = await load(`data-project="${projectId}"`, (page) =>
      page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })),
    );
    assert.equal(dnt.added, 0);
  });

  test('-privacy sends even with DNT', async () => {
    const { added } = await load(`data-project="${projectId}" data-plugins="-privacy"`, (page) =>
      page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })),
    );
    assert.equal(added, 1);
  });

  test('without data-project nothing is sent', async () => {
    const { added } = await load('');
    assert.equal(added, 0);
  });

  test('debug logs the payload and the verdict; unknown plugins are ignored', async () => {
    const { added, logs } = await load(`data-project="${projectId}" data-plugins="debug, +nonsense"`);
    assert.equal(added, 1);
    assert.ok(logs.some((l) => l.includes('[sightline]') && l.includes('payload') && l.includes(projectId)), logs.join('\n'));
    for (let i = 0; i < 20 && !logs.some((l) => l.includes('verdict')); i++) await sleep(50);
    assert.ok(logs.some((l) => l.includes('verdict') && l.includes('"tracked":true')), logs.join('\n'));
  });
});
