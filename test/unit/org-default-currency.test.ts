// The org's default currency in the co-sell asks (issue #25 section 5): an opportunity (deal) naming no
// currency of its own asks in its org's default currency, read once per connector; one naming its own
// keeps it; a read that fails is USD with one warning and never stops the page. Each CRM side is driven
// through its `related` hook and `ask`, as the CRM-to-commerce activity drives it.
import { describe, expect, it } from 'vitest';
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import { defaultCurrencyOnce } from '../../crm/default-currency.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';
import { opportunityDraftOfferSide as dynamicsDraft, opportunityReferralSide as dynamicsReferral } from '../../mappings/dynamics/opportunity-cosell.ts';
import { dealDraftOfferSide, dealReferralSide } from '../../mappings/hubspot/deal-cosell.ts';
import { opportunityDraftOfferSide as salesforceDraft } from '../../mappings/salesforce/opportunity-draft-offer.ts';
import { opportunityReferralSide as salesforceReferral } from '../../mappings/salesforce/opportunity-referral.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';

describe('defaultCurrencyOnce', () => {
  it('asks the CRM once however often and however concurrently it is asked', async () => {
    let reads = 0;
    const warnings: string[] = [];
    const currency = defaultCurrencyOnce('Test org', async () => {
      reads += 1;
      return 'eur';
    }, (message) => warnings.push(message));
    expect(await Promise.all([currency(), currency(), currency()])).toEqual(['EUR', 'EUR', 'EUR']);
    expect(await currency()).toBe('EUR');
    expect(reads).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('a read that fails is USD, said once in a warning that names the CRM and why, and is not asked again', async () => {
    let reads = 0;
    const warnings: string[] = [];
    const currency = defaultCurrencyOnce('Salesforce org', async () => {
      reads += 1;
      throw new Error('INSUFFICIENT_ACCESS: no access to Organization');
    }, (message) => warnings.push(message));
    expect(await currency()).toBe('USD');
    expect(await currency()).toBe('USD');
    expect(reads).toBe(1);
    expect(warnings).toEqual([
      'The Salesforce org default currency could not be read (INSUFFICIENT_ACCESS: no access to Organization); co-sell asks from opportunities without a currency of their own go in USD until the worker restarts or the connection is edited',
    ]);
  });

  it('an org naming no currency is USD, said once', async () => {
    const warnings: string[] = [];
    const currency = defaultCurrencyOnce('HubSpot account', async () => undefined, (message) => warnings.push(message));
    expect(await currency()).toBe('USD');
    expect(await currency()).toBe('USD');
    expect(warnings).toEqual(['HubSpot account names no default currency; co-sell asks from opportunities without a currency of their own go in USD']);
  });
});

/** A CRM answering only what the co-sell sides read, whose default currency is `currency`; counts its reads of it. */
function crmWithDefault(kind: CrmConnector['kind'], currency: string | undefined, records: Record<string, CrmRecord[]> = {}) {
  const counts = { defaultReads: 0 };
  const crm = {
    kind,
    idField: kind === 'salesforce' ? 'Id' : kind === 'hubspot' ? 'hs_object_id' : 'id',
    async findWhereIn(object: string) {
      return records[object] ?? [];
    },
    async associated(_object: string, ids: string[]) {
      return new Map(ids.map((id) => [id, ['company-1']]));
    },
    ...(currency !== undefined && {
      defaultCurrency: async () => {
        counts.defaultReads += 1;
        return currency;
      },
    }),
  } as unknown as CrmConnector;
  return { crm, counts };
}

const settings = (kind: 'salesforce' | 'hubspot' | 'dynamics') =>
  connectionSettingsSchema.parse({
    commerce: { baseUrl: 'http://commerce.test', authUrl: 'http://commerce.test/token', clientId: 'c', organizationId: 'org-1' },
    crm: kind === 'salesforce' ? { kind, loginUrl: 'http://sf.test', clientId: 'x' } : kind === 'hubspot' ? { kind, baseUrl: 'http://hs.test', auth: 'private-app', portalId: '1' } : { kind, orgUrl: 'http://dyn.test/', authority: 'http://login.test', tenantId: 't', clientId: 'x' },
    cosell: { enabled: true, share: kind === 'dynamics' ? { by: 'checkbox', field: 'ccs_cosellshare' } : { by: 'checkbox', field: kind === 'salesforce' ? 'Cosell_Share__c' : 'cosell_share' } },
  });

async function asks<R>(side: CrmSide<R>, crm: CrmConnector, kind: 'salesforce' | 'hubspot' | 'dynamics', records: CrmRecord[]) {
  const related = side.related ? await side.related(crm, records) : undefined;
  return records.map((record) => side.ask(record, settings(kind), related?.get(String(record[crm.idField]))));
}
const currencyOf = (ask: unknown) => {
  const request = (ask as { request?: { currency?: string; info?: { currency?: string } } }).request;
  return request?.currency ?? request?.info?.currency;
};

describe('Salesforce: an Opportunity without CurrencyIsoCode (a single-currency org) asks in the org default currency', () => {
  const opportunity = (id: string, extra: CrmRecord = {}): CrmRecord => ({ Id: id, Name: `Deal ${id}`, Account: { Commerce_Buyer_Id__c: 'buyer-1' }, Amount: 1000, CloseDate: '2027-03-31', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace A', Private_Offer_Requested__c: true, Commerce_Product_Id__c: 'prod-1', ...extra });

  it('referral and draft carry EUR; one with its own CurrencyIsoCode keeps it; the org is read once across pages and sides', async () => {
    const { crm, counts } = crmWithDefault('salesforce', 'EUR');
    const page = [opportunity('006A'), opportunity('006B', { CurrencyIsoCode: 'GBP' })];
    expect((await asks(salesforceReferral, crm, 'salesforce', page)).map(currencyOf)).toEqual(['EUR', 'GBP']);
    expect((await asks(salesforceDraft, crm, 'salesforce', page)).map(currencyOf)).toEqual(['EUR', 'GBP']);
    expect(counts.defaultReads).toBe(2); // the stub does not cache: the connector does (defaultCurrencyOnce)
  });

  it('a page whose Opportunities all carry their own currency does not read the org default', async () => {
    const { crm, counts } = crmWithDefault('salesforce', 'EUR');
    expect((await asks(salesforceReferral, crm, 'salesforce', [opportunity('006C', { CurrencyIsoCode: 'JPY' })])).map(currencyOf)).toEqual(['JPY']);
    expect(counts.defaultReads).toBe(0);
  });

  it('a CRM without the read (an in-memory test CRM) is USD, as before', async () => {
    const { crm } = crmWithDefault('salesforce', undefined);
    expect((await asks(salesforceReferral, crm, 'salesforce', [opportunity('006D')])).map(currencyOf)).toEqual(['USD']);
  });

  it('a default currency that is no three-letter code refuses the record in words naming where it came from', async () => {
    const { crm } = crmWithDefault('salesforce', 'XBTC1');
    const [ask] = await asks(salesforceReferral, crm, 'salesforce', [opportunity('006E')]);
    expect(ask).toEqual({ asks: true, refused: `currency: the opportunity names no currency and the CRM's default currency "XBTC1" is not a three-letter ISO currency code the marketplace takes (USD, EUR, ...); choose such a currency on the opportunity` });
  });
});

describe('HubSpot: a deal without deal_currency_code asks in the company currency', () => {
  const deal = (id: string, extra: CrmRecord = {}): CrmRecord => ({ hs_object_id: id, dealname: `Deal ${id}`, amount: '1000', closedate: '2027-03-31', cosell_share: 'true', cosell_partner: 'Marketplace B', private_offer_requested: 'true', commerce_product_id: 'prod-1', ...extra });
  const records = { companies: [{ hs_object_id: 'company-1', commerce_buyer_id: 'buyer-1' }] };

  it('referral and draft carry EUR; a deal in its own currency keeps it', async () => {
    const { crm } = crmWithDefault('hubspot', 'EUR', records);
    const page = [deal('101'), deal('102', { deal_currency_code: 'CHF' })];
    expect((await asks(dealReferralSide, crm, 'hubspot', page)).map(currencyOf)).toEqual(['EUR', 'CHF']);
    expect((await asks(dealDraftOfferSide, crm, 'hubspot', page)).map(currencyOf)).toEqual(['EUR', 'CHF']);
  });
});

describe('Dynamics: an opportunity without a transaction currency asks in the base currency', () => {
  const opportunity = (id: string, extra: CrmRecord = {}): CrmRecord => ({ id, name: `Deal ${id}`, _parentaccountid_value: 'aaaaaaaa-0000-0000-0000-000000000001', estimatedvalue: 1000, estimatedclosedate: '2027-03-31', ccs_cosellshare: true, ccs_cosellpartner: 'Marketplace C', ccs_privateofferrequested: true, ccs_commerceproductid: 'prod-1', ...extra });
  const records = {
    account: [{ id: 'aaaaaaaa-0000-0000-0000-000000000001', ccs_commercebuyerid: 'buyer-1' }],
    transactioncurrency: [{ id: 'cccccccc-0000-0000-0000-000000000001', isocurrencycode: 'SEK' }],
  };

  it('referral and draft carry EUR; one with its own transaction currency keeps it', async () => {
    const { crm } = crmWithDefault('dynamics', 'EUR', records);
    const page = [opportunity('0000000a-0000-0000-0000-000000000001'), opportunity('0000000a-0000-0000-0000-000000000002', { _transactioncurrencyid_value: 'cccccccc-0000-0000-0000-000000000001' })];
    expect((await asks(dynamicsReferral, crm, 'dynamics', page)).map(currencyOf)).toEqual(['EUR', 'SEK']);
    expect((await asks(dynamicsDraft, crm, 'dynamics', page)).map(currencyOf)).toEqual(['EUR', 'SEK']);
  });
});
