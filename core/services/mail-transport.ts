/**
 * The mail adapter (nodemailer): SMTP when SMTP_URL is set (smtp://user:pass@host:587,
 * smtps://... for implicit TLS; STARTTLS is used whenever the server offers it), otherwise the
 * outbox: each message is written as an .eml file under DATA_DIR/outbox, so a local install can
 * sign up without a mail server. The log names the file, never the message: it carries a link
 * that is a credential. nodemailer (about a hundred modules) is imported on the first message:
 * most processes never send one.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger } from '../contract/index.js';
import type { MailMessage, MailReceipt, MailTransport } from './mail.js';

export interface MailTransportOptions {
  /** smtp:// or smtps:// URL; unset = write to `outboxDir`. */
  smtpUrl?: string | undefined;
  outboxDir: string;
  /** The From header, e.g. "Transmute <no-reply@example.com>". */
  from: string;
  log: Logger;
}

/** A stuck mail server must not hold a request for minutes (nodemailer's defaults). */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

type TransportOptions = Parameters<typeof import('nodemailer').createTransport>[0];

/** A nodemailer transporter made on first use, so a process that sends no mail never loads nodemailer. */
function lazyTransporter(options: TransportOptions): { get(): Promise<Transporter>; close(): Promise<void> } {
  let made: Promise<Transporter> | undefined;
  return {
    get() {
      made ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options));
      return made;
    },
    async close() {
      (await made)?.close();
    },
  };
}

export function createMailTransport({ smtpUrl, outboxDir, from, log }: MailTransportOptions): MailTransport {
  return smtpUrl ? smtpTransport(smtpUrl, from, log) : outboxTransport(outboxDir, from, log);
}

function smtpTransport(smtpUrl: string, from: string, log: Logger): MailTransport {
  const url = new URL(smtpUrl);
  const transporter = lazyTransporter({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    ...SMTP_TIMEOUTS,
  });
  const server = `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? 465 : 587)}`;
  return {
    async send(message) {
      const info = await (await transporter.get()).sendMail({ from, ...message });
      log.info('mail sent', { server, messageId: info.messageId });
      return { messageId: info.messageId };
    },
    async close() {
      await transporter.close();
    },
  };
}

function outboxTransport(outboxDir: string, from: string, log: Logger): MailTransport {
  const builder = lazyTransporter({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async send(message: MailMessage): Promise<MailReceipt> {
      const info = await (await builder.get()).sendMail({ from, ...message });
      await mkdir(outboxDir, { recursive: true });
      // Sortable by time; the random part keeps two messages of one millisecond apart.
      const file = path.join(
        outboxDir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`,
      );
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info(`mail written to ${file}`, { messageId: info.messageId });
      return { messageId: info.messageId, path: file };
    },
    async close() {},
  };
}
