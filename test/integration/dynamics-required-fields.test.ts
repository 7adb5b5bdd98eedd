// The required-fields check on Dataverse (review of issue #23 item 5): only a column the Web API refuses
// a create without counts. A Business Required (ApplicationRequired) column is a rule of forms that the
// Web API does not enforce, so it stops neither `connect` (the mapping check) nor a sync; a
// SystemRequired custom column is still named at connect, and the worker's check never stops a run for it
// (a create Dataverse refuses becomes a dead letter, as any refused record).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { checkMappings, MappingConfigError } from '../../mappings/check.ts';
import { DYNAMICS_MAPPINGS } from '../../mappings/dynamics/index.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';

let dynamics: DynamicsSandbox;
const settings = () => ({ orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, apiVersion: '9.2', concurrency: 8 });
const credentials = () => ({ authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` });
// A fresh connector each time: a connector keeps table definitions for a few minutes.
const connector = () => createDynamicsConnector(settings(), { crmClientSecret: dynamics.clientSecret });
const addColumn = (SchemaName: string, level: 'ApplicationRequired' | 'SystemRequired') =>
  clientFor(dynamics).createAttribute({
    entityKey: "LogicalName='account'",
    data: { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName, MaxLength: 20, RequiredLevel: { Value: level }, DisplayName: { LocalizedLabels: [{ Label: SchemaName, LanguageCode: 1033 }] } } as never,
  });

beforeAll(async () => {
  dynamics = await startDynamicsSandbox({ requestsPer300s: 1_000_000, operationMs: 0, keyActivationMs: 0 });
  expect((await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: credentials() })).problems).toEqual([]);
});
afterAll(() => dynamics?.stop());

describe('Dynamics required columns', () => {
  it('a Business Required (ApplicationRequired) column the mapping leaves empty stops neither connect nor a sync', async () => {
    await addColumn('ccs_Region', 'ApplicationRequired');
    await expect(checkMappings(connector(), { buyer: DYNAMICS_MAPPINGS.buyer })).resolves.toBeUndefined();
    await expect(checkMappings(connector(), { buyer: DYNAMICS_MAPPINGS.buyer }, {}, { requiredFields: false })).resolves.toBeUndefined();
  });

  it('a SystemRequired custom column is still named at connect; the worker does not stop a run for it', async () => {
    await addColumn('ccs_Tier', 'SystemRequired');
    const failure = await checkMappings(connector(), { buyer: DYNAMICS_MAPPINGS.buyer }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MappingConfigError);
    expect((failure as MappingConfigError).problems).toEqual([
      'account.ccs_tier is required in this org and the mapping does not fill it: give it a default in Dynamics 365, make it optional, or map a value to it (overrides)',
    ]);
    await expect(checkMappings(connector(), { buyer: DYNAMICS_MAPPINGS.buyer }, {}, { requiredFields: false })).resolves.toBeUndefined();
  });
});
