/**
 * Accounts in the browser, over HTTP like the web app: sign-up with the verification mail read
 * from a real SMTP server (smtp-server, started here; the server sends through SMTP_URL), the
 * link verified, a key generated and used on REST; CSRF, sign-out, expiry and ownership; and the
 * outbox that takes the mail when no SMTP server is configured.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { standardPlugins } from '../plugins/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compiledApp,
  ROOT,
  SLOW_TEXT_PLUGIN,
  TestClock,
  freePort,
  getJson,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
  waitUntil,
} from './helpers.js';

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on a free port, keeping what it receives. */
async function startSmtpServer() {
  const received: ReceivedMail[] = [];
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: STARTTLS would need a certificate the client trusts.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        for (const wake of waiting.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** The next message to `to` (waits up to 30 s: a loaded machine sends late). */
    async mailTo(to: string, after = 0): Promise<ReceivedMail> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const found = received.slice(after).find((m) => m.to.includes(to));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Quoted-printable soft breaks and escapes undone, so a long link reads whole. */
function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function verificationToken(mail: ReceivedMail, publicUrl: string): string {
  const text = decodeQuotedPrintable(mail.raw);
  const escaped = publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped}/verify\\?token=([A-Za-z0-9_-]{43})`).exec(text);
  if (!match) throw new Error(`no verification link in:\n${text}`);
  return match[1]!;
}

interface Answer {
  status: number;
  body: {
    data?: Record<string, any> | null;
    errors?: Array<{ message: string; extensions?: { code?: string; reason?: string } }>;
  };
  cookies: string[];
}

/** A browser: keeps the cookies it is given and sends the CSRF header from its cookie, as the web app does. */
class Browser {
  readonly jar = new Map<string, string>();
  constructor(readonly url: string) {}

  get cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get csrf(): string | undefined {
    return this.jar.get('transmute_csrf');
  }

  keep(res: Response): string[] {
    const set = res.headers.getSetCookie();
    for (const line of set) {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return set;
  }

  async graphql(
    query: string,
    variables: Record<string, unknown> = {},
    options: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const res = await fetch(`${this.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.jar.size ? { cookie: this.cookieHeader } : {}),
        ...(csrf ? { 'x-csrf-token': csrf } : {}),
        ...options.headers,
      },
      body: JSON.stringify({ query, variables }),
    });
    const cookies = this.keep(res);
    return { status: res.status, body: await res.json(), cookies };
  }

  /** A query over GET, as the browser may send it: the cookie alone. */
  async graphqlGet(query: string): Promise<Answer> {
    const res = await fetch(`${this.url}/graphql?query=${encodeURIComponent(query)}`, {
      headers: this.jar.size ? { cookie: this.cookieHeader } : {},
    });
    const cookies = this.keep(res);
    return { status: res.status, body: await res.json(), cookies };
  }

  signUp(email: string, password = 'correct horse battery staple') {
    return this.graphql(
      'mutation ($email: String!, $password: String!) { signUp(email: $email, password: $password) { id email ' +
        'emailVerified plan planId } }',
      { email, password },
    );
  }

  signIn(email: string, password = 'correct horse battery staple') {
    return this.graphql(
      'mutation ($email: String!, $password: String!) { signIn(email: $email, password: $password) { id email ' +
        'emailVerified } }',
      { email, password },
    );
  }

  verify(token: string) {
    return this.graphql('mutation ($token: String!) { verifyEmail(token: $token) { id email emailVerified } }', {
      token,
    });
  }

  createApiKey(name?: string) {
    return this.graphql(
      'mutation ($name: String) { createApiKey(name: $name) { key apiKey { id prefix name createdAt lastUsedAt } } }',
      { name },
    );
  }
}

const ME = '{ me { id email emailVerified plan planId overageAvailable overageEnabled signedUrlsAvailable } }';
let counter = 0;
const newAddress = () => `user${++counter}-${Date.now()}@example.com`;

describe('accounts, sessions and e-mail verification (SMTP)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  const clock = new TestClock();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // File search (an extraction tool with a free try) beside the test-only slow text plugin.
    server = await startServer({
      plugins: standardPlugins.filter((p) => p.id === 'file-search'),
      clock,
      env: {
        SMTP_URL: smtp.url,
        PLUGINS: SLOW_TEXT_PLUGIN,
        TRUST_PROXY: 'true' /* the HTTPS case below arrives as a proxy's X-Forwarded-Proto */,
        MAIL_FROM: 'Transmute Test <no-reply@example.com>',
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  /** A signed-up browser with its address verified through the mailed link. */
  async function verifiedBrowser(): Promise<{ browser: Browser; email: string }> {
    const browser = new Browser(server.url);
    const email = newAddress();
    const before = smtp.received.length;
    expect((await browser.signUp(email)).body.errors).toBeUndefined();
    const token = verificationToken(await smtp.mailTo(email, before), server.url);
    expect((await browser.verify(token)).body.data!.verifyEmail.emailVerified).toBe(true);
    return { browser, email };
  }

  it('signs up, reads the link from the mail, verifies, generates a key and uses it on REST', async () => {
    const browser = new Browser(server.url);
    expect((await browser.graphql(ME)).body).toEqual({ data: { me: null } });

    const email = newAddress();
    const before = smtp.received.length;
    const up = await browser.signUp(email.toUpperCase());
    expect(up.status).toBe(200);
    expect(up.body.data!.signUp).toEqual({
      id: expect.stringMatching(/^acc_/),
      email,
      emailVerified: false,
      plan: 'Free',
      planId: 'free',
    });
    const session = up.cookies.find((c) => c.startsWith('transmute_session='))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Path=\//);
    expect(session).not.toMatch(/; Secure/); // plain http here
    const csrfCookie = up.cookies.find((c) => c.startsWith('transmute_csrf='))!;
    expect(csrfCookie).not.toMatch(/HttpOnly/);

    // Signed in at once, unverified: key generation is refused with 403.
    const me = await browser.graphqlGet(ME);
    expect(me.body.data!.me).toMatchObject({
      email,
      emailVerified: false,
      plan: 'Free',
      overageAvailable: true,
      signedUrlsAvailable: false,
    });
    const refused = await browser.createApiKey();
    expect(refused.status).toBe(403);
    expect(refused.body.errors![0]).toMatchObject({
      message: 'Verify your e-mail address before generating an API key',
      extensions: { code: 'FORBIDDEN' },
    });

    // The mail went through the SMTP server, from MAIL_FROM, with a link on PUBLIC_URL.
    const mail = await smtp.mailTo(email, before);
    expect(mail.from).toBe('no-reply@example.com');
    expect(decodeQuotedPrintable(mail.raw)).toMatch(/Subject: Verify your e-mail address/);
    const token = verificationToken(mail, server.url);

    // The link works from another browser too (not signed in), once.
    const elsewhere = new Browser(server.url);
    const verified = await elsewhere.verify(token);
    expect(verified.body.data!.verifyEmail).toEqual({ id: up.body.data!.signUp.id, email, emailVerified: true });
    expect(elsewhere.jar.size).toBe(0);
    const again = await browser.verify(token);
    expect(again.body.errors![0]).toMatchObject({
      message: 'This link is invalid or has expired',
      extensions: { code: 'BAD_USER_INPUT' },
    });

    const created = await browser.createApiKey('laptop');
    expect(created.body.errors).toBeUndefined();
    const { key, apiKey } = created.body.data!.createApiKey;
    expect(key).toMatch(/^ck_live_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toEqual({
      id: expect.stringMatching(/^key_/),
      prefix: key.slice(0, 12),
      name: 'laptop',
      createdAt: expect.any(String),
      lastUsedAt: null,
    });

    // The key works like any other, on REST, for the same account and pool.
    const credits = await getJson(`${server.url}/api/v1/credits`, key);
    expect(credits.status).toBe(200);
    expect(credits.body).toMatchObject({ plan: 'Free', creditsIncluded: 250, creditsUsed: 0 });
    const listed = await browser.graphqlGet(
      '{ apiKeys { id prefix name createdAt lastUsedAt } credits { plan creditsUsed overageAvailable } }',
    );
    expect(listed.body.data!.apiKeys).toEqual([{ ...apiKey, lastUsedAt: expect.any(String) }]);
    expect(JSON.stringify(listed.body)).not.toContain(key);

    // A job through the web app (session) and through the key draw on one pool and one history.
    const file = { name: 'a.txt', data: 'from the browser' };
    const accepted = await graphqlConvertWithSession(browser, file);
    expect(accepted.body.errors).toBeUndefined();
    const jobId = accepted.body.data!.convert.jobId;
    expect((await waitForJob(server.url, key, jobId)).status).toBe('done');
    clock.advance(1000); // history is newest first
    const viaKey = await submitConvert(
      server.url,
      key,
      { name: 'b.txt', data: 'from the API' },
      { to: 'md', steps: '1' },
    );
    expect(viaKey.status).toBe(200);
    const history = await getJson(`${server.url}/api/v1/history`, key);
    expect(history.body.history.map((h: { jobId: string; viaApi: boolean }) => [h.jobId, h.viaApi])).toEqual([
      [viaKey.body.jobId, true],
      [jobId, false],
    ]);
    const pool = await browser.graphqlGet('{ credits { creditsUsed } }');
    expect(pool.body.data!.credits.creditsUsed).toBe(
      (await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed,
    );
    expect(pool.body.data!.credits.creditsUsed).toBeGreaterThan(0);

    // Revoked from the panel: the key stops working at once.
    expect(
      (await browser.graphql('mutation ($id: ID!) { revokeApiKey(id: $id) }', { id: apiKey.id })).body.data,
    ).toEqual({ revokeApiKey: true });
    expect((await getJson(`${server.url}/api/v1/credits`, key)).status).toBe(401);
    expect((await browser.graphqlGet('{ apiKeys { id } }')).body.data!.apiKeys).toEqual([]);
  });

  it('refuses a cookie-authenticated mutation without the CSRF token, and a forged sign-in', async () => {
    const { browser } = await verifiedBrowser();
    for (const csrf of [null, 'A'.repeat(43)]) {
      const refused = await browser.graphql('mutation { createApiKey { key } }', {}, { csrf });
      expect(refused.status).toBe(403);
      expect(refused.body.errors![0]).toMatchObject({
        message: 'Missing or wrong CSRF token',
        extensions: { code: 'FORBIDDEN' },
      });
    }
    // Another session's CSRF token does not fit this one.
    const { browser: other } = await verifiedBrowser();
    expect((await browser.graphql('mutation { createApiKey { key } }', {}, { csrf: other.csrf! })).status).toBe(403);
    // REST refuses the same way.
    const rest = await fetch(`${server.url}/api/v1/signed-url`, {
      method: 'POST',
      headers: { cookie: browser.cookieHeader, 'content-type': 'application/json' },
      body: '{"jobId":"x"}',
    });
    expect(rest.status).toBe(403);
    expect(await rest.json()).toEqual({ error: 'Missing or wrong CSRF token' });
    // Reading needs the cookie only.
    expect((await browser.graphqlGet('{ me { emailVerified } }')).body.data!.me.emailVerified).toBe(true);
    // A jar that lost its CSRF cookie can never mutate again: refused, and its session cookie cleared so it can sign in
    // afresh.
    const broken = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        cookie: `transmute_session=${other.jar.get('transmute_session')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ query: 'mutation { signOut }' }),
    });
    expect(broken.status).toBe(403);
    expect(broken.headers.getSetCookie().map((c) => c.split('=')[0])).toEqual(['transmute_session', 'transmute_csrf']);
    // A mutation cannot come over GET.
    const overGet = await browser.graphqlGet('mutation { signOut }');
    expect(overGet.status).toBe(405);
    expect((await browser.graphqlGet('{ me { id } }')).body.data!.me).not.toBeNull();

    // A page of another site can post a form, not JSON: sign-in by form is refused before anything runs.
    const email = newAddress();
    const victim = new Browser(server.url);
    await victim.signUp(email);
    const signIn = `mutation { signIn(email: "${email}", password: "correct horse battery staple") { id } }`;
    const multipart = new FormData();
    multipart.append('operations', JSON.stringify({ query: signIn }));
    multipart.append('map', '{}');
    for (const [type, body, status] of [
      // No parser for url-encoded forms: 400 before GraphQL sees it.
      ['application/x-www-form-urlencoded', `query=${encodeURIComponent(signIn)}`, 400],
      ['text/plain', JSON.stringify({ query: signIn }), 403],
      [undefined, multipart, 401], // multipart needs a key
    ] as const) {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        ...(type ? { headers: { 'content-type': type } } : {}),
        body,
      });
      expect(res.status, type).toBe(status);
      expect(res.headers.getSetCookie(), type).toEqual([]);
    }
    // Other origins get no credentialed CORS grant.
    const preflight = await fetch(`${server.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-csrf-token',
      },
    });
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers a wrong password and an unknown address alike, and limits guessing', async () => {
    const email = newAddress();
    const browser = new Browser(server.url);
    await browser.signUp(email);
    const stranger = new Browser(server.url);
    const wrong = await stranger.signIn(email, 'not the password at all');
    const unknown = await stranger.signIn(newAddress(), 'not the password at all');
    const malformed = await stranger.signIn('not an address', 'x');
    for (const answer of [wrong, unknown, malformed]) {
      expect(answer.body.errors![0]).toMatchObject({
        message: 'Wrong e-mail or password',
        extensions: { code: 'UNAUTHENTICATED' },
      });
      expect(answer.cookies).toEqual([]);
    }
    const right = await stranger.signIn(` ${email.toUpperCase()} `);
    expect(right.body.data!.signIn.email).toBe(email);
    expect(stranger.jar.has('transmute_session')).toBe(true);

    // Five tries a minute per address; the sixth is refused even with the right password.
    const guesser = new Browser(server.url);
    for (let i = 0; i < 3; i++) await guesser.signIn(email, `guess number ${i}!`);
    const limited = await guesser.signIn(email);
    expect(limited.body.errors![0]!.extensions!.code).toBe('RATE_LIMITED');
    clock.advance(60_000);
    expect((await guesser.signIn(email)).body.data!.signIn.email).toBe(email);
  });

  it('refuses bad sign-up input in plain words, and a taken address', async () => {
    const browser = new Browser(server.url);
    expect((await browser.signUp('nobody', 'long enough password')).body.errors![0]).toMatchObject({
      message: 'Enter a valid e-mail address',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect((await browser.signUp(newAddress(), 'short')).body.errors![0]).toMatchObject({
      message: 'The password must be at least 10 characters long',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect((await browser.signUp(newAddress(), 'x'.repeat(257))).body.errors![0]!.message).toBe(
      'The password must be at most 256 characters long',
    );
    const email = newAddress();
    expect((await browser.signUp(email)).body.errors).toBeUndefined();
    const taken = await new Browser(server.url).signUp(email.toUpperCase());
    expect(taken.body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(taken.body.errors![0]!.message).toMatch(/exists already/);
    expect(taken.cookies).toEqual([]);
  });

  it('signs out server-side: the old cookie is worthless afterwards', async () => {
    const { browser } = await verifiedBrowser();
    const stolen = browser.cookieHeader;
    const csrf = browser.csrf!;
    const out = await browser.graphql('mutation { signOut }');
    expect(out.body.data).toEqual({ signOut: true });
    expect(browser.jar.size).toBe(0);
    // The copied cookie: no session, so the request has no credentials.
    const replay = async (query: string) => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { cookie: stolen, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return { status: res.status, body: await res.json(), cookies: res.headers.getSetCookie() };
    };
    const me = await replay('{ me { id } }');
    expect(me).toMatchObject({ status: 200, body: { data: { me: null } } });
    // The stale cookies are cleared.
    expect(me.cookies.map((c) => c.split('=')[0])).toEqual(['transmute_session', 'transmute_csrf']);
    const keys = await replay('{ apiKeys { id } }');
    expect(keys.status).toBe(401);
    expect(keys.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const rest = await fetch(`${server.url}/api/v1/credits`, { headers: { cookie: stolen } });
    expect(rest.status).toBe(401);
    expect((await getJson(`${server.url}/api/v1/credits`, undefined)).status).toBe(401);
  });

  it('expires links after 24 hours, and a new link replaces the old one', async () => {
    const browser = new Browser(server.url);
    const email = newAddress();
    let before = smtp.received.length;
    await browser.signUp(email);
    const first = verificationToken(await smtp.mailTo(email, before), server.url);

    before = smtp.received.length;
    expect((await browser.graphql('mutation { resendVerificationEmail }')).body.data).toEqual({
      resendVerificationEmail: true,
    });
    const second = verificationToken(await smtp.mailTo(email, before), server.url);
    expect(second).not.toBe(first);
    expect((await browser.verify(first)).body.errors![0]!.message).toBe('This link is invalid or has expired');

    clock.advance(24 * 3600_000 + 1000);
    expect((await browser.verify(second)).body.errors![0]!.message).toBe('This link is invalid or has expired');
    for (const junk of ['', 'x', 'A'.repeat(43), 'A'.repeat(10_000)]) {
      expect((await browser.verify(junk)).body.errors![0]).toMatchObject({
        message: 'This link is invalid or has expired',
        extensions: { code: 'BAD_USER_INPUT' },
      });
    }
    expect((await browser.graphqlGet('{ me { emailVerified } }')).body.data!.me.emailVerified).toBe(false);

    // The session is still alive (30 days, sliding), and a third link works.
    before = smtp.received.length;
    await browser.graphql('mutation { resendVerificationEmail }');
    const third = verificationToken(await smtp.mailTo(email, before), server.url);
    expect((await browser.verify(third)).body.data!.verifyEmail.emailVerified).toBe(true);
    expect((await browser.graphql('mutation { resendVerificationEmail }')).body.errors![0]!.message).toBe(
      'Your e-mail address is verified already',
    );
  });

  it("never shows one account's keys or jobs to another", async () => {
    const { browser: alice } = await verifiedBrowser();
    const { browser: bob } = await verifiedBrowser();
    const bobKey = (await bob.createApiKey('bob')).body.data!.createApiKey;
    const bobJob = await submitConvert(
      server.url,
      bobKey.key,
      { name: 'b.txt', data: 'bob' },
      { to: 'md', steps: '1' },
    );
    expect(bobJob.status).toBe(200);

    expect((await alice.graphqlGet('{ apiKeys { id } }')).body.data!.apiKeys).toEqual([]);
    const revoke = await alice.graphql('mutation ($id: ID!) { revokeApiKey(id: $id) }', { id: bobKey.apiKey.id });
    expect(revoke.body.errors![0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    expect((await getJson(`${server.url}/api/v1/credits`, bobKey.key)).status).toBe(200);

    const job = await alice.graphqlGet(`{ job(id: "${bobJob.body.jobId}") { status } }`);
    expect(job.body.data!.job).toBeNull();
    expect(job.body.errors![0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    expect((await alice.graphqlGet('{ history { total } }')).body.data!.history.total).toBe(0);
    // REST with Alice's cookie: Bob's job is not found either.
    const rest = await fetch(`${server.url}/api/v1/jobs/${bobJob.body.jobId}`, {
      headers: { cookie: alice.cookieHeader },
    });
    expect(rest.status).toBe(404);
    // With Bob's key, `me` is Bob.
    const me = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bobKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { email } }' }),
    });
    expect((await me.json()).data.me.email).toMatch(/@example\.com$/);
  });

  it('draws the free extraction try from one pool for the web app and the API', async () => {
    const { browser } = await verifiedBrowser();
    const { key } = (await browser.createApiKey()).body.data!.createApiKey;
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: 'mutation ($files: [Upload!]!) { fileSearch(files: $files, query: "needle") { batchId total } }',
        variables: { files: [null] },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.files.0'] }));
    form.append('0', new Blob(['hay hay needle hay']), 'notes.txt');
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      body: form,
      headers: { cookie: browser.cookieHeader, 'x-csrf-token': browser.csrf! },
    });
    const tried = await res.json();
    expect(tried.errors).toBeUndefined();
    expect(tried.data.fileSearch.total).toBe(1);

    const again = new FormData();
    again.append('query', 'needle');
    again.append('files', new Blob(['needle']), 'more.txt');
    const viaKey = await fetch(`${server.url}/api/file-search`, {
      method: 'POST',
      body: again,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(viaKey.status).toBe(403);
    expect(await viaKey.json()).toMatchObject({ code: 'trial_used' });
  });

  it('switches overage where the plan allows it', async () => {
    const { browser } = await verifiedBrowser();
    const on = await browser.graphql(
      'mutation { setOverage(enabled: true) { overageEnabled overageAvailable creditsIncluded } }',
    );
    expect(on.body.data!.setOverage).toEqual({ overageEnabled: true, overageAvailable: true, creditsIncluded: 250 });
    expect((await browser.graphqlGet(ME)).body.data!.me.overageEnabled).toBe(true);

    // Enterprise has no pay-as-you-go: refused with plan_required.
    const enterprise = await server.server.runtime.services.accounts.createAccount({ plan: 'enterprise' });
    const { key } = await server.server.runtime.services.accounts.createKey(enterprise.id);
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { setOverage(enabled: true) { overageEnabled } }' }),
    });
    const body = await res.json();
    expect(body.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN', reason: 'plan_required' } });
  });

  it('marks the cookies Secure when the service is reached over HTTPS', async () => {
    const browser = new Browser(server.url);
    const up = await browser.graphql(
      'mutation ($email: String!) { signUp(email: $email, password: "correct horse battery staple") { id } }',
      { email: newAddress() },
      { headers: { 'x-forwarded-proto': 'https' } },
    );
    expect(up.cookies).toHaveLength(2);
    for (const cookie of up.cookies) expect(cookie).toMatch(/; Secure/);
  });
});

/** The convert mutation by the multipart request spec, sent with the session cookie and CSRF header. */
async function graphqlConvertWithSession(browser: Browser, file: { name: string; data: string }): Promise<Answer> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query:
        'mutation ($file: Upload!, $options: ConvertOptions) { convert(file: $file, to: "md", options: $options) { ' +
        'jobId } }',
      variables: { file: null, options: { testSlowText: { steps: 1 } } },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([file.data]), file.name);
  const res = await fetch(`${browser.url}/graphql`, {
    method: 'POST',
    body: form,
    headers: { cookie: browser.cookieHeader, 'x-csrf-token': browser.csrf! },
  });
  return { status: res.status, body: await res.json(), cookies: [] };
}

/** The admin CLI with `input` on its stdin; its one JSON line parsed. */
async function adminWithInput(
  dataDir: string,
  input: string,
  ...args: string[]
): Promise<{ code: number | null; result: any }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const lines = out.trim().split('\n');
  return { code, result: JSON.parse(lines[lines.length - 1]!) };
}

describe('admin CLI for accounts', () => {
  it('finds, verifies and upgrades an account, sets its password from stdin, and manages its keys', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-cli-accounts-'));
    const run = (...args: string[]) => adminWithInput(dataDir, '', ...args);
    try {
      // An account made by the CLI gets a web login from its e-mail address.
      const created = await run('create-key', '--plan', 'free', '--email', 'Ops@Example.com');
      const accountId = created.result.accountId;
      const set = await adminWithInput(dataDir, 'a long enough password\n', 'set-password', '--account', accountId);
      expect(set).toEqual({ code: 0, result: { accountId, email: 'Ops@Example.com', passwordSet: true } });
      expect((await run('find-account', '--email', 'ops@example.com')).result).toMatchObject({
        accountId,
        emailVerified: true,
        plan: 'free',
      });

      expect((await run('verify-email', '--account', accountId)).result).toEqual({
        accountId,
        email: 'Ops@Example.com',
        emailVerified: true,
      });
      expect((await run('set-plan', '--account', accountId, '--plan', 'business')).result).toEqual({
        accountId,
        plan: 'business',
      });

      const added = await run('add-key', '--account', accountId, '--name', 'backup');
      expect(added.result).toEqual({
        accountId,
        keyId: expect.stringMatching(/^key_/),
        key: expect.stringMatching(/^ck_live_/),
      });
      const listed = await run('list-keys', '--account', accountId);
      expect(listed.result.keys).toEqual([
        { id: expect.stringMatching(/^key_/), prefix: created.result.key.slice(0, 12), createdAt: expect.any(String) },
        {
          id: added.result.keyId,
          prefix: added.result.key.slice(0, 12),
          name: 'backup',
          createdAt: expect.any(String),
        },
      ]);
      expect((await run('revoke-key', '--account', accountId, '--id', added.result.keyId)).result).toEqual({
        revoked: true,
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the outbox (no SMTP_URL)', () => {
  it('writes each message to DATA_DIR/outbox and logs its path without the token', { timeout: 90_000 }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-outbox-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [await compiledApp('apps/server/main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: url,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        WORKERS: '0',
        SMTP_URL: '',
        PLUGINS: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let log = '';
    child.stdout.on('data', (chunk) => (log += chunk));
    try {
      for (let started = Date.now(); ; ) {
        if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
        if (
          await fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          )
        )
          break;
        if (Date.now() - started > 60_000) throw new Error('server did not start');
        await new Promise((r) => setTimeout(r, 200));
      }
      const browser = new Browser(url);
      const email = 'outbox@example.com';
      expect((await browser.signUp(email)).body.data!.signUp.email).toBe(email);

      const files = await readdir(path.join(dataDir, 'outbox'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      const file = path.join(dataDir, 'outbox', files[0]!);
      const raw = await readFile(file, 'utf8');
      expect(raw).toMatch(/^To: outbox@example\.com\r?$/m);
      const token = verificationToken({ from: '', to: [email], raw }, url);

      // The log line reaches the pipe when the server's logger flushes.
      await waitUntil(() => log.includes(`mail written to ${file}`), 30_000, 'the outbox log line');
      expect(log).not.toContain(token);
      expect(log).not.toContain('correct horse battery staple');
      // The web app's /verify page logs its request line with the token redacted.
      await fetch(`${url}/verify?token=${token}`);
      expect((await browser.verify(token)).body.data!.verifyEmail.emailVerified).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(log).not.toContain(token);
      expect(log).not.toContain(browser.jar.get('transmute_session')!);
    } finally {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
