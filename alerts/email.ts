// Email through the route's SMTP server with nodemailer: TLS from the first byte when `secure` (port
// 465), else STARTTLS whenever the server offers it (nodemailer's default); a login when a user is set.
// SMTP 4xx answers and connection failures are worth another try; 5xx (a refused login, a refused
// recipient) are not. The password never appears in an error: only the server's answer does.
import nodemailer from 'nodemailer';
import type { AlertMessage } from './message.ts';
import type { SmtpSettings } from './routes-store.ts';
import { AlertSendError } from './send-error.ts';

export function emailText(message: AlertMessage): string {
  return [
    message.title,
    '',
    ...(message.body ? [message.body, ''] : []),
    ...message.facts.map((fact) => `${fact.name}: ${fact.value}`),
    ...(message.links.length ? ['', ...message.links.map((link) => `${link.label}: ${link.url}`)] : []),
  ].join('\n');
}

export async function sendEmail(smtp: SmtpSettings, to: string[], message: AlertMessage): Promise<void> {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user && { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  try {
    await transport.sendMail({ from: smtp.from, to, subject: message.title, text: emailText(message) });
  } catch (error) {
    const code = (error as { responseCode?: number }).responseCode;
    const answer = String((error as { response?: string }).response ?? (error as { code?: string }).code ?? (error as Error).message).slice(0, 500);
    const permanent = typeof code === 'number' && code >= 500;
    throw new AlertSendError(`The SMTP server ${smtp.host}:${smtp.port} ${permanent ? 'refused' : 'did not take'} the alert${code ? ` (${code})` : ''}: ${answer}`, { service: 'SMTP', status: code, answer, permanent });
  } finally {
    transport.close();
  }
}
