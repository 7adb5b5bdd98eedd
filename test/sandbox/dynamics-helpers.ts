// Shared by the Dynamics sandbox tests: a dynamics-web-api client against a started sandbox, with
// client-credentials tokens from the sandbox's token endpoint (as a connector would get them).
import { DynamicsWebApi } from 'dynamics-web-api';
import type { DynamicsSandbox } from '../../sandbox/dynamics/index.ts';

export async function fetchToken(sb: DynamicsSandbox, form: Record<string, string> = {}) {
  const body = new URLSearchParams({ client_id: sb.clientId, client_secret: sb.clientSecret, grant_type: 'client_credentials', scope: `${sb.orgUrl.replace(/\/$/, '')}/.default`, ...form });
  const response = await fetch(sb.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  return { status: response.status, body: (await response.json()) as any };
}

export function clientFor(sb: DynamicsSandbox) {
  let token: string | undefined;
  return new DynamicsWebApi({
    serverUrl: sb.orgUrl,
    dataApi: { version: '9.2' },
    onTokenRefresh: async () => {
      if (!token) token = (await fetchToken(sb)).body.access_token;
      return token!;
    },
  });
}
