// The secret scan the reliability scenarios end with must find a secret wherever it hides: as is,
// URL-encoded or base64-encoded, naming where and which; and inside a Temporal history's payloads,
// which a fetched history gives as base64 of the whole payload.
import proto from '@temporalio/proto';
import { expect, it } from 'vitest';
import { historyText, secretsFound } from '../support/secret-scan.ts';

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

it("reads a fetched history's payloads: a secret inside an activity's input or result is found", () => {
  const secret = 'sealed-in-a-payload-0042';
  const payload = (value: unknown) => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) });
  // As fetchHistory gives it: a protobuf message (its JSON has bytes as base64).
  const history = proto.temporal.api.history.v1.History.create({
    events: [
      { eventId: 1 as never, activityTaskScheduledEventAttributes: { input: { payloads: [payload({ connectionId: 'c-1', token: secret })] } } },
      { eventId: 2 as never, activityTaskCompletedEventAttributes: { result: { payloads: [payload({ ok: true })] } } },
    ],
  });
  expect(JSON.stringify(history)).not.toContain(secret); // what a plain JSON.stringify shows
  const text = historyText(history);
  expect(text).toContain('"connectionId":"c-1"');
  expect(secretsFound({ history: text }, { crmAccessToken: secret })).toEqual(['history: crmAccessToken']);
});
