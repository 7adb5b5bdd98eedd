// Two CRM orgs of one kind whose schemas differ where the other org's cached describe or metadata would
// refuse or misplace data (test/e2e/two-orgs-same-kind.test.ts). Written by hand, never derived from
// what the sync read:
// - Salesforce: each org lacks one custom Opportunity field the other has (Offer_Type__c, Offer_Status__c)
//   and its connection leaves that field out; the other org's describe fails the mapping check.
// - HubSpot: `crm-sync setup` makes the deal pipelines in each portal, with ids of that portal only (the
//   second portal's ids are in another range, as real portals' are): the other portal's pipeline and stage
//   ids would put deals in pipelines the portal does not have.
// - Dynamics: the second environment's entitlement table has another entity set name (an admin made the
//   table before setup): the other environment's metadata would send its entitlements to a set it lacks.
import { expect } from 'vitest';
import type { CrmKind } from '../../crm/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { grantAccess } from '../../crm/salesforce/permission-set.ts';
import { DYNAMICS_TABLES } from '../../mappings/dynamics/schema.ts';
import { OFFER_PIPELINE, REFERRAL_PIPELINE } from '../../mappings/hubspot/schema.ts';
import type { MappingOverrides } from '../../mappings/overrides.ts';
import { customFieldMetadata, SALESFORCE_CUSTOM_FIELDS, SALESFORCE_CUSTOM_OBJECTS } from '../../mappings/salesforce/schema.ts';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import type { HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import type { CrmSandboxOptions, CrmUnderTest } from './crm-sandbox.ts';
import { expectedAgainstOrg, expectedRejections, orgDifferences } from './salesforce-state.ts';

export type Pair<T> = [T, T];

export type OrgPair = {
  /** How each org's sandbox starts, and what its admin did before setup. */
  orgs: Pair<CrmSandboxOptions>;
  /** Each connection's mapping overrides. */
  overrides: Pair<MappingOverrides>;
  /** The org holds exactly its commerce organization's records, as its own schema takes them; returns the records expected refused (`entity:id`). */
  matches(crm: CrmUnderTest, commerce: CommerceSandbox, which: 0 | 1): Promise<string[]>;
  /** The two schemas really differ, and each org's records carry its own schema's values. */
  expectOwnSchema(crms: Pair<CrmUnderTest>): Promise<void>;
};

// ---- Salesforce: one custom field missing in each org.

const SALESFORCE_MISSING: Pair<string> = ['Offer_Type__c', 'Offer_Status__c'];

/** An admin's org: the project's custom objects and fields made through the Tooling API, all but one. */
const deployedWithout = (missing: string) => async (sandbox: unknown) => {
  const { conn } = await clientCredentialsConnection(sandbox as SalesforceSandbox);
  for (const object of SALESFORCE_CUSTOM_OBJECTS) {
    const Metadata = { label: object.label, pluralLabel: object.pluralLabel, nameField: { type: 'Text', label: `${object.label} Name` }, deploymentStatus: 'Deployed', sharingModel: 'ReadWrite' };
    await conn.tooling.create('CustomObject', { FullName: object.name, Metadata });
  }
  const made = SALESFORCE_CUSTOM_FIELDS.filter((candidate) => `${candidate.object}.${candidate.name}` !== `Opportunity.${missing}`);
  for (const field of made) {
    await conn.tooling.create('CustomField', { FullName: `${field.definedOn ?? field.object}.${field.name}`, Metadata: customFieldMetadata(field) });
  }
  // And granted them to the integration user (a field made through the Tooling API is visible to no one until then).
  const granted = await grantAccess(conn, (await conn.identity()).user_id, SALESFORCE_CUSTOM_OBJECTS.map((object) => object.name), made.map((field) => ({ object: field.object, field: field.name, edit: field.formula === undefined })));
  expect(granted.problems).toEqual([]);
};

const salesforce: OrgPair = {
  orgs: [
    { sandbox: { customMetadata: 'missing', clientId: 'sf-org-one-client', clientSecret: 'sf-org-one-secret-4c1d7a' }, beforeSetup: deployedWithout(SALESFORCE_MISSING[0]) },
    { sandbox: { customMetadata: 'missing', clientId: 'sf-org-two-client', clientSecret: 'sf-org-two-secret-8e2f05', idsAfter: 1_000_000 }, beforeSetup: deployedWithout(SALESFORCE_MISSING[1]) },
  ],
  overrides: [{ offer: { disable: [SALESFORCE_MISSING[0]] } }, { offer: { disable: [SALESFORCE_MISSING[1]] } }],
  async matches(crm, commerce, which) {
    const { snapshot, org, expected } = await expectedAgainstOrg(commerce, crm.salesforce!);
    const differences = orgDifferences(snapshot, org, expected);
    const unwritten = new RegExp(`^offer \\S+ ${SALESFORCE_MISSING[which]}: expected `);
    // Every field as the witness says, but the one this org lacks: it holds nothing, where offers had values.
    expect(differences.filter((line) => !unwritten.test(line))).toEqual([]);
    const empty = differences.filter((line) => unwritten.test(line));
    expect(empty.length).toBeGreaterThan(0);
    for (const line of empty) expect(line).toMatch(/, stored (null|undefined)$/);
    return expectedRejections(expected);
  },
  async expectOwnSchema(crms) {
    for (const [which, crm] of crms.entries()) {
      const { conn } = await clientCredentialsConnection(crm.salesforce!);
      const fields = new Set((await conn.sobject('Opportunity').describe()).fields.map((field) => field.name));
      expect(fields.has(SALESFORCE_MISSING[which]!), `org ${which + 1} lacks ${SALESFORCE_MISSING[which]}`).toBe(false);
      expect(fields.has(SALESFORCE_MISSING[1 - which]!), `org ${which + 1} has ${SALESFORCE_MISSING[1 - which]}`).toBe(true);
      const opportunities = [...(await crm.keyed('offer')).values()].map((row) => row.fields);
      expect(opportunities.filter((row) => row[SALESFORCE_MISSING[which]!] != null)).toEqual([]);
      expect(opportunities.filter((row) => row[SALESFORCE_MISSING[1 - which]!] != null).length).toBeGreaterThan(0);
    }
  },
};

// ---- HubSpot: each portal's own deal pipelines and stages.

type Pipeline = { id: string; label: string; stages: { id: string; label: string }[] };

async function pipelines(hubspot: HubSpotSandbox): Promise<Map<string, Pipeline>> {
  const answer = await fetch(`${hubspot.baseUrl}/crm/v3/pipelines/deals`, { headers: { authorization: `Bearer ${hubspot.accessToken}` } });
  const { results } = (await answer.json()) as { results: Pipeline[] };
  return new Map(results.map((pipeline) => [pipeline.label, pipeline]));
}

const hubspot: OrgPair = {
  orgs: [{ auth: 'oauth' }, { auth: 'oauth', sandbox: { idsAfter: 1_000_000 } }],
  overrides: [{}, {}],
  matches: (crm, commerce) => crm.expectMatchesCommerce(commerce),
  async expectOwnSchema(crms) {
    const made = await Promise.all(crms.map(async (crm) => pipelines(crm.hubspot!)));
    const idsOf = (portal: Map<string, Pipeline>) => new Set([OFFER_PIPELINE, REFERRAL_PIPELINE].flatMap((label) => [portal.get(label)!.id, ...portal.get(label)!.stages.map((stage) => stage.id)]));
    const [one, two] = made.map(idsOf) as Pair<Set<string>>;
    expect([...one].filter((id) => two.has(id)), 'the two portals share no pipeline or stage id').toEqual([]);
    for (const [which, crm] of crms.entries()) {
      const own = made[which]!;
      const foreign = [one, two][1 - which]!;
      for (const [entity, label] of [['offer', OFFER_PIPELINE], ['referral', REFERRAL_PIPELINE]] as const) {
        const pipeline = own.get(label)!;
        const deals = [...(await crm.keyed(entity)).values()].map((row) => row.fields);
        expect(deals.length).toBeGreaterThan(0);
        for (const deal of deals) {
          expect(deal.pipeline, `${entity} deal in portal ${which + 1}: its own "${label}" pipeline`).toBe(pipeline.id);
          expect(pipeline.stages.map((stage) => stage.id)).toContain(deal.dealstage);
          expect(foreign.has(deal.dealstage)).toBe(false);
        }
      }
    }
  },
};

// ---- Dynamics: the second environment's entitlement table under another entity set name.

const ENTITLEMENT_TABLE = DYNAMICS_TABLES.find((table) => table.logicalName === 'ccs_marketplaceentitlement')!;
const ENTITLEMENT_SETS: Pair<string> = ['ccs_marketplaceentitlements', 'ccs_entitlementrecords'];

const dynamics: OrgPair = {
  orgs: [
    {},
    {
      // The admin made the entitlement table (with its columns, lookups and key) under its own set name.
      beforeSetup: async (sandbox) => {
        const environment = sandbox as DynamicsSandbox;
        const scope = `${new URL(environment.orgUrl).origin}/.default`;
        const credentials = { authority: environment.authority, tenantId: environment.tenantId, clientId: environment.clientId, clientSecret: environment.clientSecret, scope };
        const report = await setUpDynamics({ orgUrl: environment.orgUrl, credentials }, [{ ...ENTITLEMENT_TABLE, entitySetName: ENTITLEMENT_SETS[1] }]);
        expect(report.problems).toEqual([]);
      },
    },
  ],
  overrides: [{}, {}],
  matches: (crm, commerce) => crm.expectMatchesCommerce(commerce),
  async expectOwnSchema(crms) {
    for (const [which, crm] of crms.entries()) {
      const rows = (set: string) => dynamicsControl(crm.dynamics!, 'GET', `/records/${set}`).then((body: unknown[]) => body.length, () => undefined);
      expect(await rows(ENTITLEMENT_SETS[which]!), `environment ${which + 1}'s entitlements, in its own entity set`).toBe((await crm.keyed('entitlement')).size);
      expect(await rows(ENTITLEMENT_SETS[1 - which]!), `environment ${which + 1} has no entity set ${ENTITLEMENT_SETS[1 - which]}`).toBeUndefined();
    }
  },
};

export const ORG_PAIRS: Record<CrmKind, OrgPair> = { salesforce, hubspot, dynamics };
