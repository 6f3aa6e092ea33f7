/**
 * A real SMTP server on loopback (the `smtp-server` library; docs/notifications.md "Test doubles"):
 * accepts messages for any recipient, answers by the magic addresses of magic.ts (550 at RCPT for
 * `bounce@`, 451 once for `defer@`, a reply delayed past the client's timeout for `timeout@` after
 * the message was kept), and writes each raw message as received to `<dir>/mail/<n>.eml`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { emailOutcome } from './magic';

/** A message the server accepted. */
export interface ReceivedMail {
  /** MAIL FROM (the return path). */
  from: string;
  to: string[];
  raw: string;
  file?: string;
}

/** A running SMTP double. */
export interface SmtpDouble {
  port: number;
  url: string;
  received: ReceivedMail[];
  stop(): Promise<void>;
}

/** Starts the SMTP double on 127.0.0.1 (port 0). `delayMs`: how long a `timeout@` reply is held. */
export async function startSmtpDouble(opts: { dir?: string; delayMs?: number; failRate?: number } = {}): Promise<SmtpDouble> {
  const received: ReceivedMail[] = [];
  const deferred = new Set<string>();
  const mailDir = opts.dir ? join(opts.dir, 'mail') : undefined;
  if (mailDir) mkdirSync(mailDir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      const outcome = emailOutcome(address.address);
      if (outcome === 'bounce') {
        const err = Object.assign(new Error('5.1.1 The email account that you tried to reach does not exist'), { responseCode: 550 });
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const to = session.envelope.rcptTo.map((r) => r.address);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        if (to.some((t) => emailOutcome(t) === 'defer') && !deferred.has(from)) {
          deferred.add(from);
          return cb(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }));
        }
        if (opts.failRate && Math.random() < opts.failRate) return cb(Object.assign(new Error('4.3.2 System not accepting messages'), { responseCode: 421 }));
        const mail: ReceivedMail = { from, to, raw };
        if (mailDir) {
          mail.file = join(mailDir, `${String(received.length + 1).padStart(4, '0')}.eml`);
          writeFileSync(mail.file, raw);
        }
        received.push(mail);
        if (to.some((t) => emailOutcome(t) === 'timeout_sent')) {
          setTimeout(() => cb(null, 'Queued'), opts.delayMs ?? 15_000).unref();
          return;
        }
        cb(null, 'Queued');
      });
    },
  });
  // A client that dies mid-session (a SIGKILLed worker) resets its connection; a mail server keeps serving.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
