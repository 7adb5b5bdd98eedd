import { describe, expect, it } from 'vitest';
import { redactSecrets, redactText } from '../../store/redact.ts';

describe('redactSecrets: nothing secret is kept or shown', () => {
  it('an entitlement row: spaUrl keeps only where it points, other fields stay as they were', () => {
    const row = {
      id: 'ent-1',
      info: {
        spaUrl: 'https://app.sandbox.example/entitlement/ent-1?token=9f86d081884c7d659a2feaa0c55ad015',
        buyerManagementURL: 'https://marketplace.example/a/manage/ext-7',
        vendorName: 'Sandbox Software Inc.',
        gracePeriodInDays: 7,
      },
    };
    expect(redactSecrets(row)).toEqual({
      id: 'ent-1',
      info: {
        spaUrl: 'https://app.sandbox.example/entitlement/ent-1?[redacted]',
        buyerManagementURL: 'https://marketplace.example/a/manage/ext-7',
        vendorName: 'Sandbox Software Inc.',
        gracePeriodInDays: 7,
      },
    });
    expect(row.info.spaUrl).toContain('token='); // the input is not changed
  });

  it('an spaUrl whose token is in the path, or that is no URL at all, is hidden whole', () => {
    expect(redactSecrets({ spaUrl: 'https://app.example/t/eyJhbGciOiJIUzI1NiJ9.e30.sig' })).toEqual({ spaUrl: 'https://app.example/[redacted]' });
    expect(redactSecrets({ spa_url: 'not a url but a token 1234' })).toEqual({ spa_url: '[redacted]' });
  });

  it('keys that name secrets, in any spelling, whatever their value', () => {
    const input = {
      access_token: 'at-1', refreshToken: 'rt-2', client_secret: 'cs-3', password: 12345, Authorization: 'Bearer abc',
      apiKey: 'k-4', 'X-Api-Key': 'k-5', secret: { nested: 'object' }, token: ['a', 'b'], crmClientSecret: 'cs-6',
      tokenType: 'Bearer', isSecret: true, emptyPassword: '', missingToken: null,
    };
    expect(redactSecrets(input)).toEqual({
      access_token: '[redacted]', refreshToken: '[redacted]', client_secret: '[redacted]', password: '[redacted]', Authorization: '[redacted]',
      apiKey: '[redacted]', 'X-Api-Key': '[redacted]', secret: '[redacted]', token: '[redacted]', crmClientSecret: '[redacted]',
      tokenType: 'Bearer', isSecret: true, emptyPassword: '', missingToken: null,
    });
  });

  it('signed URLs under any key and inside arrays: presigned storage, SAS, OAuth codes, credentials in the URL', () => {
    const input = {
      agreementPdfUrl: 'https://bucket.s3.amazonaws.com/agreements/a.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=abcdef0123',
      links: [
        'https://store.blob.core.windows.net/c/b.pdf?sv=2024-01-01&se=2026-12-01&sig=Zm9vYmFy',
        'https://login.example/callback?code=oauth-code-77&state=s1',
        'https://page.example/list?page=2&sort=name',
        'postgres://crm:hunter22@db.internal:5432/crm',
      ],
      redirectUri: 'https://app.example/cb#access_token=frag-token-9&expires_in=3600',
    };
    expect(redactSecrets(input)).toEqual({
      agreementPdfUrl: 'https://bucket.s3.amazonaws.com/agreements/a.pdf?[redacted]',
      links: [
        'https://store.blob.core.windows.net/c/b.pdf?[redacted]',
        'https://login.example/callback?[redacted]',
        'https://page.example/list?page=2&sort=name',
        'postgres://db.internal:5432/crm',
      ],
      redirectUri: 'https://app.example/cb?[redacted]',
    });
  });

  it('free text: a CRM message quoting a signed link, a token pair, a JSON body and an Authorization header', () => {
    expect(redactText('Invalid URL https://app.example/e/1?token=tk-123456789, see field Link__c.')).toBe('Invalid URL https://app.example/e/1?[redacted], see field Link__c.');
    expect(redactText('grant failed: refresh_token=rt-secret-42&client_id=abc')).toBe('grant failed: refresh_token=[redacted]&client_id=abc');
    expect(redactText('body {"access_token": "at-99", "instance_url": "https://x.example"}')).toBe('body {"access_token":"[redacted]", "instance_url": "https://x.example"}');
    expect(redactText('sent Authorization: Bearer 00DSb0000000001!AQ8AQJ1rP4x.yz')).toBe('sent Authorization: Bearer [redacted]');
    // What is no secret reads as before.
    const plain = 'STRING_TOO_LONG: Name: data value too large: Basic plan (max length=120); duplicate key=Commerce_Offer_Id__c';
    expect(redactText(plain)).toBe(plain);
  });

  it('free text: JSON quoted inside JSON, and "name: value" header or log pairs whose value looks like a credential', () => {
    expect(redactText('answer "{\\"error\\":\\"invalid_grant\\",\\"refresh_token\\":\\"5Aep861TSESvWeug\\"}"')).toBe('answer "{\\"error\\":\\"invalid_grant\\",\\"refresh_token\\":\\"[redacted]\\"}"');
    expect(redactText("config had refresh_token: '5Aep861TSESvWeug' and x-api-key: 1234567890abcdef")).toBe("config had refresh_token: '[redacted]' and x-api-key: [redacted]");
    expect(redactText('Proxy-Authorization:Basic dXNlcjpwYXNzd29yZA== sent')).toBe('Proxy-Authorization:Basic [redacted] sent');
    // Words after a secret's name are no secret: a person still reads why the CRM refused.
    const words = 'Salesforce refused the refresh token: expired or revoked; token: invalid_grant; authorization: denied';
    expect(redactText(words)).toBe(words);
  });

  // Review of issue #26 defect 8: a value after a name that can only name a value is hidden however short
  // or plain it is ("password: hunter2" is a password); only vague names keep words that read as a state.
  it('free text: "name: value" after password, secret, api key or a named token is hidden whatever it looks like', () => {
    expect(redactText('password: hunter2')).toBe('password: [redacted]');
    expect(redactText('login failed, password: letmein')).toBe('login failed, password: [redacted]');
    expect(redactText('client_secret: s3cr3t!')).toBe('client_secret: [redacted]');
    expect(redactText('api_key: abcdefg')).toBe('api_key: [redacted]');
    expect(redactText('refresh_token: ab-cd-ef-gh')).toBe('refresh_token: [redacted]');
    // A bare "secret" reads as a word in our own advice, and stays.
    expect(redactText("The connection's secrets lack client secret: save it again with crm-sync connect")).toBe("The connection's secrets lack client secret: save it again with crm-sync connect");
    // The price: a word after such a name goes too.
    expect(redactText('password: required')).toBe('password: [redacted]');
  });

  it('hostile input: cycles, a __proto__ key, very deep nesting, odd values', () => {
    const cyclic: Record<string, unknown> = { name: 'loop', password: 'p' };
    cyclic.self = cyclic;
    expect(redactSecrets(cyclic)).toEqual({ name: 'loop', password: '[redacted]', self: '[circular]' });

    const shared = { token: 't' };
    expect(redactSecrets({ a: shared, b: shared })).toEqual({ a: { token: '[redacted]' }, b: { token: '[redacted]' } }); // seen twice is no cycle

    const proto = JSON.parse('{"__proto__": {"token": "x", "polluted": true}, "ok": 1}');
    const redacted = redactSecrets(proto) as Record<string, unknown>;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.keys(redacted)).toEqual(['__proto__', 'ok']);
    expect(JSON.stringify(redacted)).toBe('{"__proto__":{"token":"[redacted]","polluted":true},"ok":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    let deep: unknown = { token: 'deep-secret' };
    for (let i = 0; i < 10_000; i++) deep = { child: deep };
    const text = JSON.stringify(redactSecrets(deep));
    expect(text).not.toContain('deep-secret');
    expect(text).toContain('nested more than');

    expect(redactSecrets(null)).toBeNull();
    expect(redactSecrets(42)).toBe(42);
    expect(redactSecrets([undefined, true, 'https://not a url?token=x'])).toEqual([undefined, true, 'https://not a url?token=[redacted]']);
    expect(redactSecrets({ when: new Date('2026-01-02T03:04:05Z') })).toEqual({ when: '2026-01-02T03:04:05.000Z' });
  });

  it('reads an oversized field (300,000 characters of name characters) and still finds the secret after it', () => {
    const oversized = 'word.'.repeat(60_000);
    const text = `${oversized} then https://api.example/cb?access_token=tok-300k and client_secret=sess-300k`;
    const redacted = redactText(text);
    expect(redacted.startsWith(oversized)).toBe(true);
    expect(redacted.endsWith(' then https://api.example/cb?[redacted] and client_secret=[redacted]')).toBe(true);
    expect(redacted).not.toContain('tok-300k');
  });
});
