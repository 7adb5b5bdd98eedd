// Which commerce records a CRM-to-commerce flow of this connection made from a seller's own CRM record
// (its outbound_intents rows, created, name them): a private offer drafted from the seller's Opportunity.
// The commerce-to-CRM sync then leaves that record's seller-kept fields alone (EntityMapping.sellerKeeps).
import type pg from 'pg';

type Queryable = pg.Pool | pg.PoolClient;

export async function madeFromSellersRecords(client: Queryable, connectionId: string, crmFlow: string, commerceIds: string[]): Promise<Set<string>> {
  if (commerceIds.length === 0) return new Set();
  // A few rows per connection (one per draft asked for), read through the (connection, flow) prefix of the key.
  const { rows } = await client.query(
    `SELECT commerce_id FROM outbound_intents WHERE connection_id = $1 AND flow = $2 AND state = 'created' AND commerce_id = ANY($3::text[])`,
    [connectionId, crmFlow, commerceIds],
  );
  return new Set(rows.map((row) => row.commerce_id as string));
}
