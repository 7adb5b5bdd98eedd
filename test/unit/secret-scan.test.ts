// The secret scan the reliability scenarios end with must find a secret wherever it hides: as is,
// URL-encoded or base64-encoded, naming where and which.
import { expect, it } from 'vitest';
import { secretsFound } from '../support/secret-scan.ts';

it('finds each secret as is, URL-encoded and base64-encoded, and says where and which', () => {
  const secret = 'pa$$ word/with+signs';
  const texts = {
    plain: `token=${secret}`,
    url: `postgres://u:${encodeURIComponent(secret)}@h/db`,
    base64: `Authorization: Basic ${Buffer.from(secret).toString('base64')}`,
    clean: 'nothing to see here',
  };
  expect(secretsFound(texts, { crmClientSecret: secret, short: 'abc', unset: undefined })).toEqual(['plain: crmClientSecret', 'url: crmClientSecret', 'base64: crmClientSecret']);
  expect(secretsFound({ clean: texts.clean }, { crmClientSecret: secret })).toEqual([]);
});
