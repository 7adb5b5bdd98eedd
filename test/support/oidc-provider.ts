// A real OpenID Connect provider for the console's sign-in tests: oidc-provider (panva's certified
// implementation) on a loopback port chosen by the system. Its own development login form takes a user id
// (any password) and signs that user in; each test user has a name, an email and groups, released under the
// scopes profile, email and groups. The console is a confidential client that must use PKCE. The consent
// step is granted up front (a first-party console), so a browser goes login form -> back to the console.
//
// The console's redirect URI is only known once its admin server listens, and the provider needs it when
// it is made: so the port is opened first, and the provider is made and plugged in by register().
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type TestPerson = { name: string; email: string; groups: string[] };

export type TestOidcProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Makes the provider, with the console as its one client sending people back to `redirectUri`. */
  register(redirectUri: string): Promise<void>;
  stop(): Promise<void>;
};

// oidc-provider ships no type definitions: only what these tests use.
type Ctx = { oidc: { client: { clientId: string }; session: { accountId: string }; provider: { Grant: new (init: { clientId: string; accountId: string }) => Grant } } };
type Grant = { addOIDCScope(scope: string): void; save(): Promise<string> };
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => { callback(): http.RequestListener };

/** How long ID tokens last unless a test asks otherwise (`idTokenSeconds`). */
export const ID_TOKEN_SECONDS = 1800;

export async function startOidcProvider(people: Record<string, TestPerson>, options: { idTokenSeconds?: number } = {}): Promise<TestOidcProvider> {
  const idTokenSeconds = options.idTokenSeconds ?? ID_TOKEN_SECONDS;
  let handler: http.RequestListener = (_request, response) => {
    response.writeHead(503).end('The test identity provider is not registered yet\n');
  };
  const server = http.createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  // localhost, not 127.0.0.1: another site than the console's (browsers compare hosts, not ports), as a real
  // provider is, so the SameSite=Strict session cookie meets the cross-site return from the provider.
  const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
  const clientId = 'crm-sync-console';
  const clientSecret = `oidc-secret-${randomBytes(16).toString('hex')}`;
  const scopes = 'openid profile email groups';

  return {
    issuer,
    clientId,
    clientSecret,
    async register(redirectUri) {
      // A string specifier: the module has no types for the compiler to find.
      const { Provider } = (await import('oidc-provider' as string)) as { Provider: ProviderConstructor };
      const provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
        pkce: { required: () => true },
        scopes: scopes.split(' '),
        claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'], groups: ['groups'] },
        cookies: { keys: [randomBytes(16).toString('hex')] },
        ttl: { IdToken: idTokenSeconds, AccessToken: ID_TOKEN_SECONDS, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600 },
        features: { devInteractions: { enabled: true } },
        async findAccount(_ctx: unknown, sub: string) {
          const person = people[sub];
          if (!person) return undefined;
          return { accountId: sub, claims: async () => ({ sub, name: person.name, email: person.email, email_verified: true, groups: person.groups }) };
        },
        // First-party: consent is given up front for the scopes the console asks for.
        async loadExistingGrant(ctx: Ctx) {
          const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
          grant.addOIDCScope(scopes);
          await grant.save();
          return grant;
        },
      });
      handler = provider.callback();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
