/**
 * Mail the service sends (e-mail verification), through a MailTransport: SMTP, or the outbox
 * folder when no SMTP server is configured (mail-transport.ts). Messages are plain text with an
 * HTML alternative; links are built on PUBLIC_URL.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where a message went, for the log (never the message itself: it carries links that are credentials). */
export interface MailReceipt {
  messageId: string;
  /** The outbox file, when the message was written to disk instead of sent. */
  path?: string;
}

export interface MailTransport {
  send(message: MailMessage): Promise<MailReceipt>;
  close(): Promise<void>;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class MailService {
  constructor(
    private readonly transport: MailTransport,
    private readonly publicUrl: string,
    private readonly productName = 'Transmute',
  ) {}

  /** The link the web app's /verify page answers (it calls the verifyEmail mutation with the token). */
  verificationLink(token: string): string {
    return `${this.publicUrl}/verify?token=${encodeURIComponent(token)}`;
  }

  async sendVerification(to: string, token: string, validHours: number): Promise<MailReceipt> {
    const link = this.verificationLink(token);
    return this.transport.send({
      to,
      subject: `Verify your e-mail address for ${this.productName}`,
      text: [
        `Welcome to ${this.productName}.`,
        '',
        'Open this link to verify your e-mail address:',
        link,
        '',
        `The link works once and expires in ${validHours} hours. Once verified, you can generate API keys in your ` +
          `account panel.`,
        'If you did not sign up, ignore this message: nothing happens without the link.',
      ].join('\n'),
      html: [
        `<p>Welcome to ${escapeHtml(this.productName)}.</p>`,
        `<p><a href="${escapeHtml(link)}">Verify your e-mail address</a></p>`,
        `<p>The link works once and expires in ${validHours} hours. Once verified, you can generate API keys in your ` +
          `account panel.</p>`,
        '<p>If you did not sign up, ignore this message: nothing happens without the link.</p>',
      ].join('\n'),
    });
  }
}
