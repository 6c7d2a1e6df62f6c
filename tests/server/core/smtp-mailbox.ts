import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Test } from 'tap';

/** A local SMTP server for one test: `url` goes in SMTP_URL, `received` holds each raw message. */
export async function smtpMailbox(t: Test) {
  const received: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        received.push(raw);
        done();
      });
    },
  });
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  t.teardown(() => new Promise<void>((r) => smtp.close(() => r())));
  return { received, url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` };
}
