import { expect, test } from '@playwright/test';
import { SMTPServer } from 'smtp-server';
import { serverOf } from './playwright.config.js';

/**
 * A real SMTP listener for the spec file that calls this at its top level, on its server's SMTP port: sign-in codes arrive here
 * as they would at a mail server. Returns `codeFor(email)`, the newest code sent to that address (and
 * `codeFor.mailsTo(email)`, the messages themselves).
 */
export function useMailbox() {
  const mailbox: string[] = [];
  let smtp: SMTPServer;
  test.beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData(stream, _session, done) {
        let raw = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (raw += chunk));
        stream.on('end', () => {
          mailbox.push(raw);
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(serverOf(test.info()).smtpPort, '127.0.0.1', resolve));
  });
  test.afterAll(async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  /** Every message (raw, as received) sent to `email` so far, oldest first. */
  const mailsTo = (email: string) => mailbox.filter((m) => m.toLowerCase().includes(`to: ${email}`));
  return Object.assign(codeFor, { mailsTo });

  async function codeFor(email: string): Promise<string> {
    let code: string | undefined;
    await expect
      .poll(() => {
        const mail = mailsTo(email).at(-1);
        code = mail ? /sign-in code: (\d{6})/.exec(mail)?.[1] : undefined;
        return code;
      })
      .toBeTruthy();
    return code!;
  }
}
