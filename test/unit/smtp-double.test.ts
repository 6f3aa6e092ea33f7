/**
 * The SMTP double of the notification tests and the chaos run (tools/notify-doubles/smtp.ts): a
 * client that dies mid-session (a SIGKILLed worker resets its connection) does not stop the server.
 */
import { connect } from 'node:net';
import nodemailer from 'nodemailer';
import { afterEach, expect, it } from 'vitest';
import { type SmtpDouble, startSmtpDouble } from '../../tools/notify-doubles/smtp';

let smtp: SmtpDouble | undefined;
afterEach(async () => {
  await smtp?.stop();
  smtp = undefined;
});

it('keeps serving after a client resets its connection inside a mail transaction', async () => {
  smtp = await startSmtpDouble();
  const socket = connect(smtp.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  const say = (line: string) =>
    new Promise<void>((resolve) => {
      socket.once('data', () => resolve());
      socket.write(`${line}\r\n`);
    });
  await say('EHLO worker');
  await say('MAIL FROM:<payouts@example.com>'); // inside a transaction, a reset is an error event
  socket.resetAndDestroy();
  await new Promise((r) => setTimeout(r, 100));
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
  await transport.sendMail({ from: 'payouts@example.com', to: 'flow@example.com', subject: 'after a reset', text: 'still here' });
  expect(smtp.received.map((m) => m.to)).toEqual([['flow@example.com']]);
});
