import type { Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}
export type Mailer = (mail: Mail) => Promise<void>;

/** SMTP when SMTP_URL is set; otherwise the message goes to the server log so a newcomer can still sign in. */
export function createMailer(smtpUrl: string | undefined, from: string, log: FastifyBaseLogger): Mailer {
  if (!smtpUrl) {
    return async (mail) => {
      log.info({ to: mail.to, subject: mail.subject }, `mail (no SMTP_URL set): ${mail.text}`);
    };
  }
  // Made at the first message: loading nodemailer costs about a tenth of a second of CPU.
  let transport: Promise<Transporter> | undefined;
  return async (mail) => {
    transport ??= import('nodemailer').then((m) => m.default.createTransport(smtpUrl));
    await (await transport).sendMail({ from, ...mail });
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's mailer, for mail sent once a request's work has committed. */
    mailer: Mailer;
  }
}
