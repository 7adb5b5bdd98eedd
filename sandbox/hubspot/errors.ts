// HubSpot's error answers: `{status:"error", message, correlationId, category}` (the spec's Error
// schema), and the per-record StandardError entries of 207 batch answers.
import { randomUUID } from 'node:crypto';

export class HubSpotError extends Error {
  readonly status: number;
  readonly category: string;
  readonly extra: Record<string, unknown>;
  constructor(status: number, category: string, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.category = category;
    this.extra = extra;
  }
  body(): Record<string, unknown> {
    return { status: 'error', message: this.message, correlationId: randomUUID(), category: this.category, ...this.extra };
  }
}

export const validation = (message: string, extra: Record<string, unknown> = {}) => new HubSpotError(400, 'VALIDATION_ERROR', message, extra);
export const notFound = (message = 'Resource not found') => new HubSpotError(404, 'OBJECT_NOT_FOUND', message);

/** One failed input of a batch, as a StandardError (every field the spec requires). */
export function batchError(status: number, category: string, message: string, context: Record<string, string[]> = {}) {
  return { status: 'error', category, message, context, errors: [], links: {}, subCategory: {} as Record<string, never> } as const;
}
// StandardError's spec types `status` as text: the HTTP status of the failed input.
export type BatchError = ReturnType<typeof batchError>;
