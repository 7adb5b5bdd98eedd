// The revenue and agreement rules that need more than one field (mappings/canonical/entitlement-agreement.ts),
// case by case, with expectations written by hand.
import { describe, expect, it } from 'vitest';
import { agreementPdf, agreementStatus, autoRenew, installmentLines, netTermsInDays, renewalChainRoot } from '../../mappings/canonical/entitlement-agreement.ts';

describe('the agreement PDF', () => {
  it('a lasting link is kept and the note cleared', () => {
    expect(agreementPdf({ cloudAAgreementPdfURL: 'https://objects.example/agreements/a.pdf' })).toEqual({ url: 'https://objects.example/agreements/a.pdf', note: null });
  });
  it('a signed, expiring link (S3, Google Cloud Storage, Azure SAS) is cleared and the note written', () => {
    for (const url of [
      'https://b.s3.amazonaws.com/a.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20260101&X-Amz-Signature=ab',
      'https://b.s3.amazonaws.com/a.pdf?AWSAccessKeyId=AK&Expires=1767225600&Signature=ab',
      'https://storage.googleapis.com/b/a.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=ab',
      'https://acct.blob.core.windows.net/c/a.pdf?sv=2024-01-01&se=2026-01-01T00%3A00%3A00Z&sig=ab',
      // Credentials of other kinds: an API key, a JWT, CloudFront's policy and key pair, a user and password, a fragment token; and no https.
      'https://files.example/a.pdf?key=abc123',
      'https://files.example/a.pdf?jwt=eyJhbGciOi',
      'https://d111.cloudfront.net/a.pdf?Policy=eyJ&Key-Pair-Id=K2J',
      'https://user:pass@files.example/a.pdf',
      'https://files.example/a.pdf#access_token=abc',
      'http://files.example/a.pdf',
      'javascript:alert(1)',
    ]) expect(agreementPdf({ cloudAAgreementPdfURL: url }), url).toEqual({ url: null, note: PDF_NOTE_TEXT });
  });
  it('no PDF: neither field is written', () => {
    expect(agreementPdf({})).toEqual({});
    expect(agreementPdf({ cloudAAgreementPdfURL: '' })).toEqual({});
  });
});

/** The note, written out by hand. */
const PDF_NOTE_TEXT = 'The agreement PDF exists; its link is signed and expires, so it is not stored here. Open it from the marketplace, or ask the commerce service for a fresh link (entitlement PDF).';

describe('net terms, auto-renew, agreement status, renewal chain', () => {
  it('net terms: the entitlement\'s days first, else marketplace A\'s whole-day duration, else none', () => {
    expect(netTermsInDays({ netTermsInDays: 45, cloudANetPaymentTerm: 'P15D' })).toBe(45);
    expect(netTermsInDays({ cloudANetPaymentTerm: 'P15D' })).toBe(15);
    expect(netTermsInDays({ cloudANetPaymentTerm: 'P1M' })).toBeUndefined();
    expect(netTermsInDays({ netTermsInDays: 'thirty' })).toBeUndefined();
  });
  it('auto-renew: the entitlement\'s flag first, else B\'s subscription, D\'s instance; none for the others', () => {
    expect(autoRenew({ id: 'e', lastUpdateTime: 0, partner: 'cloudB', info: { autoRenew: true, cloudBSubscriptions: [{ autoRenew: false }] } })).toBe(true);
    expect(autoRenew({ id: 'e', lastUpdateTime: 0, partner: 'cloudB', info: { cloudBSubscriptions: [{ autoRenew: false }] } })).toBe(false);
    expect(autoRenew({ id: 'e', lastUpdateTime: 0, partner: 'cloudD', info: { cloudDEntitlements: [{ AutoRenewal: true }] } })).toBe(true);
    expect(autoRenew({ id: 'e', lastUpdateTime: 0, partner: 'cloudE', info: {} })).toBeUndefined();
  });
  it('agreement status: only where the marketplace gives one', () => {
    expect(agreementStatus({ id: 'e', lastUpdateTime: 0, partner: 'cloudA', info: { cloudAAgreement: { status: 'RENEWED' } } })).toBe('RENEWED');
    expect(agreementStatus({ id: 'e', lastUpdateTime: 0, partner: 'cloudC', info: { cloudCEntitlements: [{ state: 'ENTITLEMENT_ACTIVE' }] } })).toBeUndefined();
    expect(agreementStatus({ id: 'e', lastUpdateTime: 0, partner: 'cloudF', info: {} })).toBeUndefined();
  });
  it('renewal chain: the root agreement when it is another; a standalone agreement is its own root', () => {
    expect(renewalChainRoot({ cloudAAgreement: { agreementId: 'agmt-2', initialAgreementId: 'agmt-1' } })).toBe('agmt-1');
    expect(renewalChainRoot({ cloudAAgreement: { agreementId: 'agmt-1', initialAgreementId: 'agmt-1' } })).toBeUndefined();
  });
});

describe('payment installments', () => {
  it('lines by date, amounts with two decimals and grouping, the installment\'s currency over the entitlement\'s', () => {
    expect(installmentLines({ paymentInstallments: [{ chargeOn: '2026-04-01T12:00:00Z', amount: 1234567.5, currencyCode: 'EUR' }, { chargeDate: '2026-01-15T00:00:00Z', chargeAmount: 99 }] }, 'USD'))
      .toBe('2026-01-15: 99.00 USD\n2026-04-01: 1,234,567.50 EUR');
  });
  it('an installment without an amount is left out; none at all: nothing written', () => {
    expect(installmentLines({ paymentInstallments: [{ chargeDate: '2026-01-15T00:00:00Z' }] }, 'USD')).toBeUndefined();
    expect(installmentLines({}, 'USD')).toBeUndefined();
  });
});
