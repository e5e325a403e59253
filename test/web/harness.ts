/**
 * The browser tests' harness: Debian's Chromium driven by playwright-core (no downloaded browser),
 * a real SMTP server (smtp-server) receiving the server's mail, and screenshots kept under
 * .tmp/screenshots/ as a CI artifact.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { ROOT, freePort } from '../helpers.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM)
  console.warn(
    `web tests skipped: no Chromium at ${CHROMIUM} (npm test's set-up installs Debian's chromium; or set ` +
      `CHROMIUM_PATH)`,
  );

export const SCREENSHOTS = path.join(ROOT, '.tmp/screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** A full-page screenshot under .tmp/screenshots/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface Mail {
  to: string[];
  raw: string;
  /** The body with quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface MailServer {
  url: string;
  mails: Mail[];
  /** The next mail to `address` (one already received counts). */
  waitFor(address: string, timeoutMs?: number): Promise<Mail>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** An SMTP server on a free local port that keeps every message (plain SMTP, no TLS, no auth). */
export async function startMailServer(): Promise<MailServer> {
  const mails: Mail[] = [];
  const waiting = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          raw,
          text: decodeQuotedPrintable(raw),
        });
        for (const wake of waiting) wake();
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(address, timeoutMs = 20_000) {
      const find = () => mails.find((mail) => mail.to.includes(address.toLowerCase()));
      return new Promise((resolve, reject) => {
        const check = () => {
          const mail = find();
          if (!mail) return;
          cleanup();
          resolve(mail);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `no mail to ${address} within ${timeoutMs} ms (received: ` +
                `${mails.map((m) => m.to.join(',')).join('; ') || 'none'})`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiting.delete(check);
        };
        waiting.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The verification link in a mail (the server writes `<PUBLIC_URL>/verify?token=…`). */
export function verificationLink(mail: Mail): string {
  const link = /https?:\/\/[^\s"'<>]+\/verify\?token=[^\s"'<>&]+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no verification link in the mail:\n${mail.text.slice(0, 2000)}`);
  return link;
}
