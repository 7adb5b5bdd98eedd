// A local SMTP server for tests (smtp-server): plain SMTP on port 0 with STARTTLS switched off, a
// login required (user and password given here), every message kept whole.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = { from: string; to: string[]; user?: string; raw: string };

export async function startSmtpServer(credentials: { user: string; password: string }) {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.password) return callback(null, { user: auth.username });
      return callback(new Error('535 Authentication credentials invalid'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), user: session.user as string | undefined, raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { host: '127.0.0.1', port, mails, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
