// What an admin does on the CRM side to take back the credentials a connection holds, per CRM, and what
// the CRM then says, written from each vendor's documented refusals (not from our connectors):
// - Salesforce: the connected app's client-credentials access withdrawn (its run-as user removed): every
//   session ends (401 INVALID_SESSION_ID) and the token endpoint answers 400 invalid_grant "no client
//   credentials user enabled".
// - HubSpot (OAuth): the app uninstalled from the account: its access tokens are gone (401) and its
//   refresh token answers 400 BAD_REFRESH_TOKEN.
// - Dynamics 365: the app registration's client secret deleted: the identity platform answers 401
//   invalid_client AADSTS7000215. Tokens already issued live until they expire (within the hour), so
//   the sandbox's tokens are expired too: the revocation as the sync meets it an hour later.
// `restore` stands for the admin making them good again (the sandboxes keep one set of credentials).
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { control as salesforceControl } from '../../sandbox/salesforce/testing.ts';
import type { CrmUnderTest } from './crm-sandbox.ts';

export type Revocation = {
  /** What the admin did, in a sentence. */
  what: string;
  revoke(): Promise<void>;
  restore(): Promise<void>;
  /** The CRM's own words in its refusal, which the reasons shown to people must keep. */
  crmSays: RegExp;
  /** The key of the sandbox's token endpoint in its call counts. */
  tokenEndpoint: string;
};

export function revocationOf(crm: CrmUnderTest): Revocation {
  if (crm.salesforce) {
    const salesforce = crm.salesforce;
    return {
      what: "the connected app's client-credentials access is withdrawn",
      revoke: async () => {
        await salesforceControl(salesforce, 'POST', '/oauth/refusal', { error: 'invalid_grant', error_description: 'no client credentials user enabled' });
        await salesforceControl(salesforce, 'POST', '/sessions/expire');
      },
      restore: async () => void (await salesforceControl(salesforce, 'DELETE', '/oauth/refusal')),
      crmSays: /invalid_grant: no client credentials user enabled/,
      tokenEndpoint: 'token',
    };
  }
  if (crm.hubspot) {
    const hubspot = crm.hubspot;
    return {
      what: 'the OAuth app is uninstalled from the HubSpot account',
      revoke: async () => void (await hubspotControl(hubspot, 'POST', '/tokens/revoke', { app: 'oauth' })),
      restore: async () => void (await hubspotControl(hubspot, 'POST', '/tokens/restore')),
      crmSays: /BAD_REFRESH_TOKEN.*missing or unknown refresh token/,
      tokenEndpoint: 'oauth.token',
    };
  }
  const dynamics = crm.dynamics!;
  return {
    what: "the app registration's client secret is deleted",
    revoke: async () => {
      await dynamicsControl(dynamics, 'POST', '/clients/revoke');
      await dynamicsControl(dynamics, 'POST', '/tokens/expire');
    },
    restore: async () => void (await dynamicsControl(dynamics, 'POST', '/clients/restore')),
    crmSays: /AADSTS7000215: Invalid client secret provided/,
    tokenEndpoint: 'POST token',
  };
}
