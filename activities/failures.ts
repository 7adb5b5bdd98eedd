// Failures in Temporal's retry language: wait as long as a side asked, never retry what cannot succeed,
// and mark a connection whose credentials a side refused, so its runs stop until new secrets are saved.
import { ApplicationFailure } from '@temporalio/common';
import { CommerceAuthError, CommerceCredentialsRefusedError } from '../commerce/index.ts';
import { CrmBudgetExhaustedError, CrmCredentialsRefusedError, CrmError } from '../crm/connector.ts';
import { MappingConfigError } from '../mappings/check.ts';

/** Failure types that mean a side refused the connection's credentials: only new secrets will help. */
export const CREDENTIALS_REFUSED_TYPE = 'CredentialsRefused';

export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toFailure(error);
  }
}

export function toFailure(error: unknown): unknown {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof CrmBudgetExhaustedError) {
    return ApplicationFailure.create({ message: error.message, type: 'CrmBudgetExhausted', nextRetryDelay: Math.max(1000, error.resetsAt.getTime() - Date.now()) });
  }
  if (error instanceof CrmCredentialsRefusedError || error instanceof CommerceCredentialsRefusedError) {
    return ApplicationFailure.create({ message: error.message, type: CREDENTIALS_REFUSED_TYPE, nonRetryable: true, details: [error instanceof CrmError ? error.code : 'commerce'] });
  }
  if (error instanceof CrmError) {
    if (!error.retryable) return ApplicationFailure.create({ message: error.message, type: error.code, nonRetryable: true });
    return ApplicationFailure.create({ message: error.message, type: error.code, nextRetryDelay: error.retryAfterMs });
  }
  if (error instanceof CommerceAuthError || error instanceof MappingConfigError) {
    return ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: true });
  }
  const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs;
  if (retryAfterMs) return ApplicationFailure.create({ message: (error as Error).message, type: (error as Error).name, nextRetryDelay: retryAfterMs });
  return error;
}

/** True when a failure says the credentials themselves were refused (older histories used the vendor's codes). */
export function isCredentialsRefused(error: unknown): boolean {
  return error instanceof ApplicationFailure && (error.type === CREDENTIALS_REFUSED_TYPE || error.type === 'CommerceCredentialsRefused');
}

/** A short, person-readable reason from any failure (the CRM's or commerce side's own words kept). */
export function reasonOf(error: unknown): string {
  const status = (error as { status?: number }).status;
  const message = (error as Error)?.message ?? String(error);
  return status ? `HTTP ${status}: ${message}` : message;
}
