// Every operation the sandbox implements, by operation key. The rest of the catalogue answers 501.
import { commissionHandlers } from './commission.ts';
import type { Handler } from './common.ts';
import { entitlementHandlers } from './entitlements.ts';
import { eventHandlers } from './events.ts';
import { offerWriteHandlers } from './offer-writes.ts';
import { offerReadHandlers } from './offers.ts';
import { organizationHandlers } from './organization.ts';
import { partyHandlers } from './parties.ts';
import { productHandlers } from './products.ts';
import { referralHandlers } from './referrals.ts';
import { usageHandlers } from './usage.ts';
import { renewalHandlers } from './renewals.ts';

export const HANDLERS: ReadonlyMap<string, Handler> = new Map(
  Object.entries({ ...partyHandlers, ...productHandlers, ...entitlementHandlers, ...offerReadHandlers, ...offerWriteHandlers, ...referralHandlers, ...commissionHandlers, ...eventHandlers, ...usageHandlers, ...renewalHandlers, ...organizationHandlers }).filter(
    (entry): entry is [string, Handler] => entry[1] !== undefined,
  ),
);
