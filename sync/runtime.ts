// Builds the clients of one connection (commerce client, CRM connector) from the store, and keeps them
// while the connection is unchanged, so tokens and sessions are reused across pages.
import { createCommerceClient, type CommerceClient } from '../commerce/index.ts';
import type { CrmConnector } from '../crm/connector.ts';
import { createConnector, mappingsFor } from '../crm/registry.ts';
import type { Entity, EntityMapping } from '../mappings/types.ts';
import type { ConnectionStore } from '../store/connections.ts';
import { writesBack } from './write-back-owner.ts';
import { storedRefreshTokenVault } from './refresh-token-handover.ts';
import { connectionSecretsSchema, connectionSettingsSchema, type ConnectionSettings } from './connection-settings.ts';

export type ConnectionRuntime = {
  id: string;
  name: string;
  settings: ConnectionSettings;
  commerce: CommerceClient;
  crm: CrmConnector;
  mappings: Partial<Record<Entity, EntityMapping<any, any>>>;
  /**
   * Whether this connection writes CRM ids back onto commerce records and follows the ids they carry
   * (only one connection per commerce organization and CRM kind does; unset means it does).
   */
  writesBack?: boolean;
};

export type RuntimeOptions = { commerceRetries?: number; commerceMinRetryDelayMs?: number };

export function createRuntimeCache(connections: ConnectionStore, options: RuntimeOptions = {}) {
  const cache = new Map<string, { updatedAt: number; runtime: ConnectionRuntime }>();

  return async function runtimeFor(connectionId: string): Promise<ConnectionRuntime> {
    const summary = await connections.get(connectionId);
    if (!summary) throw new Error(`No connection with id ${connectionId}`);
    const cached = cache.get(connectionId);
    if (cached && cached.updatedAt === summary.updatedAt.getTime()) return cached.runtime;
    const stored = (await connections.getWithSecrets(connectionId))!;
    const settings = connectionSettingsSchema.parse(stored.settings);
    const secrets = connectionSecretsSchema.parse(stored.secrets);
    if (settings.crm.kind !== stored.crmKind) throw new Error(`Connection ${stored.name}: its settings are for ${settings.crm.kind} but it was saved as a ${stored.crmKind} connection`);
    const runtime: ConnectionRuntime = {
      id: stored.id,
      name: stored.name,
      settings,
      commerce: createCommerceClient({
        baseUrl: settings.commerce.baseUrl,
        authUrl: settings.commerce.authUrl,
        clientId: settings.commerce.clientId,
        clientSecret: secrets.commerceClientSecret,
        retries: options.commerceRetries,
        minRetryDelayMs: options.commerceMinRetryDelayMs,
        timeoutMs: settings.commerce.requestTimeoutMs,
      }),
      // A rotated refresh token is sealed into the connection without touching updated_at, so this runtime stays cached.
      crm: createConnector(settings, secrets, { lookbackSeconds: settings.schedule.lookbackSeconds, refreshTokens: storedRefreshTokenVault(connections, stored.id) }),
      mappings: mappingsFor(settings.crm.kind, settings.crm),
      writesBack: writesBack(stored, await connections.list()),
    };
    cache.set(connectionId, { updatedAt: summary.updatedAt.getTime(), runtime });
    return runtime;
  };
}

export type RuntimeFor = ReturnType<typeof createRuntimeCache>;
