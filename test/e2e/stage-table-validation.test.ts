// connect and edit check the co-sell stage tables a connection sets against the CRM itself (issue #24
// defect 5): verifyConnection, which both run before saving, names a stage the CRM's stage field lacks and
// a toCrm entry whose way back is another stage; a connection without its own tables is not held up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { ConnectionCheckError, verifyConnection } from '../../sync/verify-connection.ts';
import { CRMS_UNDER_TEST, startSandboxesFor } from '../support/crm-sandbox.ts';

/** A stage each CRM's field does have, and one it does not (Dynamics' stepname is free text: none it lacks). */
const CRM_STAGES = {
  salesforce: { lacking: 'Partner Committed', won: 'Closed Won' },
  hubspot: { lacking: 'Partner Committed', won: 'Closed Won' },
  dynamics: { lacking: undefined, won: 'Won' },
};

describe.each(CRMS_UNDER_TEST)('stage tables checked against %s before a connection is saved', (kind) => {
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  beforeAll(async () => {
    sandboxes = await startSandboxesFor(kind, { entitlements: 5, seed: 5 });
  });
  afterAll(() => sandboxes?.stop());

  const settingsWith = (stages: Record<string, Record<string, string>>) =>
    connectionSettingsSchema.parse({
      commerce: { baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, organizationId: sandboxes.commerce.organizationId },
      crm: sandboxes.crm.settings(),
      entities: ['buyer'],
      cosell: { stages },
    });
  const secrets = () => ({ commerceClientSecret: sandboxes.commerce.clientSecret, ...sandboxes.crm.secrets() });
  const problemsOf = async (stages: Record<string, Record<string, string>>) => {
    try {
      await verifyConnection(settingsWith(stages), secrets());
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(ConnectionCheckError);
      return (error as ConnectionCheckError).problems;
    }
  };

  it('no tables of its own: nothing to say', async () => {
    expect(await problemsOf({})).toEqual([]);
  }, 120_000);

  it('a stage the CRM lacks, and a toCrm entry that comes back as another stage, are refused by name', async () => {
    const { lacking, won } = CRM_STAGES[kind];
    if (lacking) {
      const problems = await problemsOf({ toCrm: { Committed: lacking }, toCommerce: { [lacking]: 'Committed' } });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`stage table: STAGE_NOT_IN_CRM: toCrm maps "Committed" to "${lacking}", a stage ${sandboxes.crm.name} does not have`));
    }
    const problems = await problemsOf({ toCrm: { Committed: won } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`stage table: STAGE_ROUND_TRIP: toCrm maps "Committed" to "${won}", which toCommerce maps back to "Launched"`));
  }, 120_000);
});
