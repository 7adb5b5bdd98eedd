// Whichever activity of a connection meets a refusal of its credentials first marks the connection for
// re-authorisation: a sync page, the notification feed, or a co-sell page (co-sell runs every 30 s by
// default, often before the next sync). Every later run of any kind then stops at once with the reason
// instead of asking the login again, until `crm-sync edit` saves working secrets.
import type pg from 'pg';
import { createReauthorisationStore } from '../store/reauthorisation.ts';
import { isCredentialsRefused } from './failures.ts';

/** An activity of one connection (each has its own input type, every one with the connection's id). */
type ConnectionActivity = (input: any) => Promise<unknown>;

/** The same activities, each marking its connection when it fails because a side refused the credentials. */
export function markingRefusedCredentials<A extends Record<string, ConnectionActivity>>(pool: pg.Pool, activities: A): A {
  const reauthorisation = createReauthorisationStore(pool);
  const marking = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: { connectionId: string }) => {
      try {
        return await activity(input);
      } catch (error) {
        if (isCredentialsRefused(error)) await reauthorisation.mark(input.connectionId, (error as Error).message);
        throw error;
      }
    },
  ]);
  return Object.fromEntries(marking) as A;
}

/** The mark's reason inside a sentence of ours (it usually ends with its own full stop). */
export function reasonInSentence(reason: string): string {
  return reason.trim().replace(/\.+$/, '');
}
