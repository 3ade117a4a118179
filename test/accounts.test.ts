import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createUser } from '../src/accounts/create-user.ts';
import { verifyPassword, hashPassword } from '../src/accounts/password.ts';
import { createFixture, useTestApp, type Fixture } from './helpers.ts';
import { json, run, cliEnv, scratchDataDir } from './processes.ts';
import { rmSync } from 'node:fs';

const INGEST_URL = (projectId: string) => `/api/ingest/${projectId}`;

describe('accounts: users, sign-in, sessions, CSRF', () => {
  const ctx = useTestApp();
  let fx: Fixture;
  const password = 'correct horse battery';

  before(async () => {
    fx = await createFixture(ctx.db, { plan: 'free' });
    await createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'Owner@Example.com', password, role: 'owner' });
  });

  const signIn = (email: string, pw: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: '/app/session', payload: { email, password: pw }, headers: { 'x-forwarded-for': '198.51.100.7', ...headers } });
  const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!;

  test('passwords: scrypt with salt, verified in constant time; the same password hashes differently', async () => {
    const a = await hashPassword('s3cret-enough');
    const b = await hashPassword('s3cret-enough');
    assert.notEqual(a, b);
    assert.match(a, /^scrypt\$32768\$8\$1\$/);
    assert.equal(await verifyPassword('s3cret-enough', a), true);
    assert.equal(await verifyPassword('s3cret-enougH', a), false);
    assert.equal(await verifyPassword('x', 'md5$abc'), false);
  });

  test('users: email and password checked; the same email (any case) is the same person in another workspace', async () => {
    await assert.rejects(createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'not-an-email', password, role: 'owner' }), /email/);
    await assert.rejects(createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'short@example.com', password: 'short', role: 'owner' }), /password/);
    await assert.rejects(createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'x@example.com', password, role: 'admin' }), /role/);
    const other = await createFixture(ctx.db);
    const first = await createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'both@example.com', password, role: 'viewer' });
    const again = await createUser(ctx.db, { workspaceId: other.workspaceId, email: 'BOTH@example.com', password: 'another password', role: 'owner' });
    assert.equal(again.id, first.id);
    const roles = await ctx.db.selectFrom('memberships').select(['workspace_id', 'role']).where('user_id', '=', first.id).execute();
    assert.equal(roles.length, 2);
  });

  test('sign in: a wrong password or unknown email is 401 alike; the right one sets an HttpOnly SameSite cookie', async () => {
    const wrong = await signIn('owner@example.com', 'wrong password!');
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error.code, 'unauthorized');
    assert.equal((await signIn('nobody@example.com', password)).json().error.message, wrong.json().error.message);
    const ok = await signIn('OWNER@example.com', password);
    assert.equal(ok.statusCode, 200);
    const cookie = String(ok.headers['set-cookie']);
    assert.match(cookie, /^sl_session=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    const session = ok.json().data;
    assert.equal(session.workspaceId, fx.workspaceId);
    assert.equal(session.role, 'owner');
    const again = await ctx.app.inject({ url: '/app/session', headers: { cookie: cookieOf(ok) } });
    assert.equal(again.json().data.email, 'Owner@Example.com');
    assert.equal((await ctx.app.inject({ url: '/app/session' })).statusCode, 401);
  });

  test('the session reads the public API of its workspace (any plan), and only read endpoints', async () => {
    const ok = await signIn('owner@example.com', password);
    const cookie = cookieOf(ok);
    const projects = await ctx.app.inject({ url: '/api/v1/projects', headers: { cookie } });
    assert.equal(projects.statusCode, 200, 'a free plan has no API access for keys, but the app reads');
    assert.deepEqual(projects.json().data.projects.map((p: { id: string }) => p.id), [fx.projectId]);
    assert.equal((await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/ranking`, headers: { cookie } })).statusCode, 200);
    const other = await createFixture(ctx.db);
    assert.equal((await ctx.app.inject({ url: `/api/v1/projects/${other.projectId}/visibility/ranking`, headers: { cookie } })).statusCode, 404);
    const ingest = await ctx.app.inject({ method: 'POST', url: INGEST_URL(fx.projectId), headers: { cookie, 'x-csrf-token': ok.json().data.csrfToken, 'content-type': 'text/plain' }, payload: 'x' });
    assert.equal(ingest.statusCode, 401, 'writes need a key');
    // Behind a proxy's password, a browser repeats Basic credentials on every request: the cookie still speaks.
    const behindProxy = await ctx.app.inject({ url: '/api/v1/projects', headers: { cookie, authorization: 'Basic dXNlcjpwYXNz' } });
    assert.equal(behindProxy.statusCode, 200, behindProxy.body);
    assert.equal((await ctx.app.inject({ url: '/app/session', headers: { cookie, authorization: 'Basic dXNlcjpwYXNz' } })).statusCode, 200);
    assert.equal((await ctx.app.inject({ url: '/api/v1/projects', headers: { cookie, authorization: 'Bearer nope' } })).statusCode, 401, 'a Bearer header is the key\'s, a bad key refused');
  });

  test("signing out ends the cookie's session even when the request came with an API key beside it", async () => {
    const ok = await signIn('owner@example.com', password);
    const cookie = cookieOf(ok);
    const out = await ctx.app.inject({ method: 'DELETE', url: '/app/session', headers: { cookie, authorization: 'Bearer sl_anything' } });
    assert.equal(out.statusCode, 204);
    assert.equal((await ctx.app.inject({ url: '/app/session', headers: { cookie } })).statusCode, 401, 'the session is gone, not only the cookie');
  });

  test('CSRF: signing out with the cookie but without the token is refused; with it, the session ends everywhere', async () => {
    const ok = await signIn('owner@example.com', password);
    const cookie = cookieOf(ok);
    const refused = await ctx.app.inject({ method: 'DELETE', url: '/app/session', headers: { cookie } });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json().error.message, /CSRF/);
    const forged = await ctx.app.inject({ method: 'DELETE', url: '/app/session', headers: { cookie, 'x-csrf-token': 'guess' } });
    assert.equal(forged.statusCode, 403);
    const out = await ctx.app.inject({ method: 'DELETE', url: '/app/session', headers: { cookie, 'x-csrf-token': ok.json().data.csrfToken } });
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await ctx.app.inject({ url: '/app/session', headers: { cookie } })).statusCode, 401);
    assert.equal((await ctx.app.inject({ url: '/api/v1/projects', headers: { cookie } })).statusCode, 401);
  });

  test('sign-in is rate limited per address and email', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await signIn('guesser@example.com', 'wrong password!')).statusCode);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
    assert.equal(statuses[11], 429);
  });

  // The sign-in page's form posted by the browser itself: redirects, never an error page (nor a
  // console error); the same checks and the same limit as the JSON sign-in.
  test('a form sign-in: 303 to where it asked (from / the first project), refusals back to the page with the reason', async () => {
    const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      ctx.app.inject({
        method: 'POST',
        url: '/app/session',
        payload: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'sightline.test', 'x-forwarded-for': '198.51.100.9', ...headers },
      });
    // Its own people (the limit counts an address and an email: the tests' requests all come from one address).
    await createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'form@example.com', password, role: 'owner' });
    await createUser(ctx.db, { workspaceId: fx.workspaceId, email: 'form-refused@example.com', password, role: 'owner' });
    const home = await form({ email: 'form@example.com', password, next: '/' }, { origin: 'http://sightline.test' });
    assert.equal(home.statusCode, 303);
    assert.equal(home.headers.location, `/projects/${fx.projectId}`);
    assert.match(String(home.headers['set-cookie']), /^sl_session=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Lax/);
    assert.equal(home.body, '');
    const cookie = cookieOf(home);
    assert.equal((await ctx.app.inject({ url: '/app/session', headers: { cookie } })).json().data.role, 'owner', 'the cookie is a session');

    const deep = await form({ email: 'form@example.com', password, next: `/projects/${fx.projectId}/citations?range=7&signIn=wrong&retry=5` });
    assert.equal(deep.headers.location, `/projects/${fx.projectId}/citations?range=7`, 'the refusal before is not carried on');
    for (const elsewhere of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)']) {
      assert.equal((await form({ email: 'form@example.com', password, next: elsewhere })).headers.location, `/projects/${fx.projectId}`, elsewhere);
    }

    const cases: [string, Record<string, string>, Record<string, string>, string][] = [
      ['a wrong password', { email: 'form-refused@example.com', password: 'not it at all', next: '/projects/abc?range=7' }, {}, '/projects/abc?range=7&signIn=wrong'],
      ['no password', { email: 'form-refused@example.com', next: '/' }, {}, '/?signIn=invalid'],
      ["another site's form (login CSRF)", { email: 'form-refused@example.com', password, next: '/' }, { origin: 'https://evil.example' }, '/?signIn=refused'],
      ['an opaque origin', { email: 'form-refused@example.com', password, next: '/' }, { origin: 'null' }, '/?signIn=refused'],
    ];
    for (const [name, fields, headers, location] of cases) {
      const refused = await form(fields, headers);
      assert.equal(refused.statusCode, 303, name);
      assert.equal(refused.headers.location, location, name);
      assert.equal(refused.headers['set-cookie'], undefined, `${name}: no session`);
    }
    // The limit is the JSON sign-in's, counted together.
    for (let i = 0; i < 10; i++) await signIn('form-guesser@example.com', 'wrong password!', { 'x-forwarded-for': '198.51.100.10' });
    const busy = await form({ email: 'form-guesser@example.com', password: 'wrong password!', next: '/' }, { 'x-forwarded-for': '198.51.100.10' });
    assert.equal(busy.statusCode, 303);
    assert.match(String(busy.headers.location), /^\/\?signIn=busy&retry=\d+$/);
  });

  test('sightline user create reads the password from standard input', async () => {
    const dataDir = scratchDataDir('user-create');
    const env = cliEnv(dataDir, { server: true });
    try {
      const { id: workspaceId } = await json(['workspace', 'create', '--name', 'People'], env);
      const created = await json(['user', 'create', '--workspace', workspaceId, '--email', 'cli@example.com', '--role', 'owner'], env, 'a long enough password\n');
      assert.match(created.id, /^[0-9a-f-]{36}$/);
      const bad = await run(['user', 'create', '--workspace', workspaceId, '--email', 'cli2@example.com', '--json'], env, 'short\n');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /password/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
