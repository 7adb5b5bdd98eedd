// Email alerts through a real SMTP conversation (smtp-server on port 0, a login required): the message
// arrives with the alert's subject and body, sent as the route's user; a wrong password is a refusal
// that names the server's answer and never the password.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '../../alerts/email.ts';
import { alertMessage } from '../../alerts/message.ts';
import { AlertSendError } from '../../alerts/send-error.ts';
import { startSmtpServer } from '../support/smtp-server.ts';

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer({ user: 'alerts', password: 'pw-s3cret-smtp' });
});
afterAll(() => smtp?.stop());

describe('email alerts (local SMTP server)', () => {
  it('arrive with the subject, the body and the links, after a login', async () => {
    const message = alertMessage(
      { eventID: 'e-9', entityType: 'ENTITLEMENT', action: 'PENDING_CANCEL', entityName: 'Acme yearly', title: 'Entitlement pending cancellation', message: 'The buyer asked to cancel.', partner: 'cloudB' },
      { buyer: 'Acme Corp', crmUrl: 'https://crm.example/a0B1' },
    );
    await sendEmail({ host: smtp.host, port: smtp.port, secure: false, user: 'alerts', password: 'pw-s3cret-smtp', from: 'crm-sync@example.com' }, ['owner@example.com'], message);
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail).toMatchObject({ from: 'crm-sync@example.com', to: ['owner@example.com'], user: 'alerts' });
    expect(mail!.raw).toMatch(/^Subject: Entitlement pending cancellation: Acme yearly\r?$/m);
    const body = mail!.raw.replace(/=\r?\n/g, '');
    expect(body).toContain('The buyer asked to cancel.');
    expect(body).toContain('Buyer: Acme Corp');
    expect(body).toContain('Open in the CRM: https://crm.example/a0B1');
  });

  it('a refused login is a refusal (not retried) that names the server, never the password', async () => {
    const error = await sendEmail({ host: smtp.host, port: smtp.port, secure: false, user: 'alerts', password: 'pw-wrong-one', from: 'crm-sync@example.com' }, ['owner@example.com'], alertMessage({ eventID: 'e-10', title: 'x' })).catch((e) => e);
    expect(error).toBeInstanceOf(AlertSendError);
    expect(error.details).toMatchObject({ permanent: true, status: 535 });
    expect(error.message).toContain(`127.0.0.1:${smtp.port}`);
    expect(error.message).not.toContain('pw-wrong-one');
  });
});
