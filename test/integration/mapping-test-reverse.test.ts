// "Test on a real record" for the CRM-to-commerce flows (issue #26 section 3), against real PostgreSQL
// and the Salesforce and commerce sandboxes: an Opportunity shared for co-sell shows the exact referral
// request and the commerce side's dry run accepting it; one not shared says it asks nothing and why; one
// whose Account names a buyer the marketplace lacks shows the commerce side's problem; an id naming
// nothing says so. Neither sandbox is written to (their own call counts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crmFlowPage } from '../../admin/console/mapping-reverse-page.ts';
import { permissionFor } from '../../admin/permissions.ts';
import { CRM_FLOWS } from '../../flows/index.ts';
import { connectionReverseReads, crmFlowView, NEW_ID, testCrmFlowOnRecord } from '../../ops/mapping-test-reverse.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createRuntimeCache, type ConnectionRuntime } from '../../sync/runtime.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, createSandboxConnection, salesforceCalls, startSandboxes, TEST_SECRET_BOX, writeCalls } from '../support/sync-harness.ts';

/** The commerce sandbox's calls that change something: every POST, PATCH, PUT or DELETE but the token and the dry runs. */
async function commerceWrites(apiUrl: string): Promise<number> {
  const { operations } = (await (await fetch(`${apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> };
  return Object.entries(operations)
    .filter(([key]) => /^(POST|PATCH|PUT|DELETE) /.test(key) && !/oauth2\/token|\/validate$/.test(key))
    .reduce((sum, [, count]) => sum + count, 0);
}
async function commerceCalls(apiUrl: string, key: string): Promise<number> {
  const { operations } = (await (await fetch(`${apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> };
  return operations[key] ?? 0;
}

describe('test on a CRM record for opportunity-referral (real PostgreSQL, Salesforce and commerce sandboxes)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let rt: ConnectionRuntime;
  let buyer: { id: string };
  const opportunity: Record<'shared' | 'notShared' | 'unknownBuyer', string> = { shared: '', notShared: '', unknownBuyer: '' };
  let sfWritesBefore = 0;
  let commerceWritesBefore = 0;
  const flow = CRM_FLOWS['opportunity-referral']!;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 6, seed: 31 });
    const connections = createConnectionStore(database.pool, TEST_SECRET_BOX);
    const connection = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { entities: ['buyer'] });
    rt = await createRuntimeCache(connections)(connection.id);
    buyer = (await commerceDump(sandboxes.commerce, 'buyers'))[0];

    // A seller's records, made before the counts are taken: an Account synced from a real buyer, one naming a buyer the marketplace lacks.
    const accounts = await rt.crm.upsert('Account', [
      { sourceId: buyer.id, externalIdField: 'Commerce_Buyer_Id__c', externalId: buyer.id, fields: { Name: 'Synced Buyer Ltd' } },
      { sourceId: 'buyer-nowhere', externalIdField: 'Commerce_Buyer_Id__c', externalId: 'buyer-nowhere', fields: { Name: 'Typed By Hand Ltd' } },
    ]);
    const [synced, stray] = accounts.map((result) => (result.ok ? result.crmId : expect.unreachable(JSON.stringify(result))));
    const made = await rt.crm.insert('Opportunity', [
      { sourceId: 'shared', fields: { Name: 'Shared deal', AccountId: synced, StageName: 'Prospecting', CloseDate: '2027-03-31', Amount: 24000, Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace B' } },
      { sourceId: 'notShared', fields: { Name: 'Quiet deal', AccountId: synced, StageName: 'Prospecting', CloseDate: '2027-03-31', Amount: 500, Cosell_Share__c: false, Cosell_Partner__c: 'Marketplace B' } },
      { sourceId: 'unknownBuyer', fields: { Name: 'Stray deal', AccountId: stray, StageName: 'Prospecting', CloseDate: '2027-03-31', Amount: 700, Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace B' } },
    ]);
    for (const result of made) opportunity[result.sourceId as keyof typeof opportunity] = result.ok ? result.crmId : expect.unreachable(JSON.stringify(result));
    sfWritesBefore = writeCalls(await salesforceCalls(sandboxes.salesforce));
    commerceWritesBefore = await commerceWrites(sandboxes.commerce.apiUrl);
  });
  afterAll(async () => {
    await sandboxes?.stop();
    await database?.drop();
  });

  it('a shared Opportunity shows the exact referral request, accepted by the dry run, and the write-back it would get', async () => {
    const validatesBefore = await commerceCalls(sandboxes.commerce.apiUrl, 'POST /org/{orgId}/cosell/referral/validate');
    const result = await testCrmFlowOnRecord(connectionReverseReads(rt), { flow, recordId: opportunity.shared });
    expect(result).toMatchObject({ flow: 'opportunity-referral', object: 'Opportunity', asks: true, problems: [], ok: true });
    expect(result.notRun).toBeUndefined(); // co-sell is on by default: the connection runs this flow
    expect(result.request).toEqual({
      name: 'Shared deal',
      partner: 'cloudB',
      buyerID: buyer.id,
      dealValue: 24000,
      currency: 'USD',
      expectedCloseDate: '2027-03-31',
      crmAOpportunityId: opportunity.shared,
      status: 'SUBMITTED', // no submit rule: a shared Opportunity goes to the partner at once
    });
    expect(result.record).toMatchObject({ Name: 'Shared deal', Cosell_Share__c: true, Account: { Commerce_Buyer_Id__c: buyer.id } });
    expect(result.writeBack).toMatchObject({ Commerce_Referral_Id__c: NEW_ID, Cosell_Status__c: '(its status once made)', Cosell_Errors__c: null });
    expect(result.why).toBeUndefined();
    // The commerce side was asked, by its dry run only.
    expect((await commerceCalls(sandboxes.commerce.apiUrl, 'POST /org/{orgId}/cosell/referral/validate')) - validatesBefore).toBe(1);
  });

  it('an Opportunity not shared says it asks nothing, and why, without asking the commerce side', async () => {
    const validatesBefore = await commerceCalls(sandboxes.commerce.apiUrl, 'POST /org/{orgId}/cosell/referral/validate');
    const result = await testCrmFlowOnRecord(connectionReverseReads(rt), { flow, recordId: opportunity.notShared });
    expect(result).toMatchObject({ asks: false, problems: [] });
    expect(result.why).toBe("It is not shared for co-sell: this connection's share rule wants Cosell_Share__c ticked, and the record's Cosell_Share__c is false.");
    expect(result.request).toBeUndefined();
    expect(result.writeBack).toBeUndefined();
    expect((await commerceCalls(sandboxes.commerce.apiUrl, 'POST /org/{orgId}/cosell/referral/validate')) - validatesBefore).toBe(0);
  });

  it("a request the commerce side would refuse shows its problem, and the reasons that would go onto the record", async () => {
    const result = await testCrmFlowOnRecord(connectionReverseReads(rt), { flow, recordId: opportunity.unknownBuyer });
    expect(result).toMatchObject({ asks: true, ok: false });
    expect(result.request).toMatchObject({ name: 'Stray deal', buyerID: 'buyer-nowhere', crmAOpportunityId: opportunity.unknownBuyer });
    expect(result.problems).toEqual(['buyerID: buyer buyer-nowhere is not a marketplace buyer of this organization: the account is not linked to a marketplace buyer']);
    expect(result.writeBack).toMatchObject({ Cosell_Errors__c: 'buyerID: buyer buyer-nowhere is not a marketplace buyer of this organization: the account is not linked to a marketplace buyer' });
  });

  it('an id naming no Opportunity says so', async () => {
    const result = await testCrmFlowOnRecord(connectionReverseReads(rt), { flow, recordId: '006000000000000AAA' });
    expect(result).toMatchObject({ ok: false, failed: 'There is no Opportunity 006000000000000AAA in the CRM.' });
  });

  it('wrote nothing on either side', async () => {
    expect(sfWritesBefore, "the count sees the setup's own writes, so it would see the test's").toBeGreaterThan(0);
    expect(writeCalls(await salesforceCalls(sandboxes.salesforce)) - sfWritesBefore).toBe(0);
    expect((await commerceWrites(sandboxes.commerce.apiUrl)) - commerceWritesBefore).toBe(0);
    expect((await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => Object.values(opportunity).includes(referral.crmAOpportunityId))).toEqual([]);
  });
});

describe('who may use the CRM flow page', () => {
  const path = '/connections/c-1/mappings/crm/opportunity-referral';
  const settings = { cosell: { enabled: true, share: { by: 'checkbox', field: 'Cosell_Share__c' } } } as never;
  const page = (role: 'viewer' | 'operator' | 'admin') =>
    crmFlowPage(
      { csrf: 'x', who: { via: 'oidc', role, person: { subject: 's', name: 'Pat' } } },
      { connection: { id: 'c-1', name: 'acme', crm: 'Salesforce' }, view: crmFlowView(CRM_FLOWS['opportunity-referral']!, 'salesforce', settings)!, crmFlows: ['opportunity-referral'], flows: ['offer'] },
      'salesforce',
    );

  it('a viewer reads it; testing posts the page, which takes an admin as the commerce-to-CRM test does', () => {
    expect(permissionFor('GET', path).role).toBe('viewer');
    expect(permissionFor('POST', path).role).toBe('admin');
    expect(page('viewer')).toContain('Testing takes the role that may change mappings.');
    expect(page('operator')).not.toContain('name="record"');
    expect(page('admin')).toContain('<label for="record">Opportunity id</label>');
  });
});
