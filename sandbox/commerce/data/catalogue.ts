// The product catalogue's dimensions and list prices (assumption A18): one fixed entry per generated
// product, in product order, so the catalogue never draws from the seed's PRNG and every other record a
// seed makes stays as it was. Keys, units and the two kinds of dimension follow AWS Marketplace's
// product dimensions (a key, a name, a unit; "Entitled" for what a contract buys, "ExternallyMetered"
// for usage the seller reports), with a list price per unit in each currency the product is sold in.
import type { ProductDimension } from '../types.ts';

type Entry = { name: string; productType: string; currencies: readonly string[]; dimensions: readonly ProductDimension[] };

const dim = (key: string, name: string, unit: string, type: ProductDimension['type'], prices: Record<string, number>, description: string): ProductDimension => ({
  key,
  name,
  description,
  unit,
  type,
  prices: Object.entries(prices).map(([currency, pricePerUnit]) => ({ currency, pricePerUnit })),
});

/** Products 1 to 8 (names and types as the generator gives them), then the retired product 9. */
export const CATALOGUE: readonly Entry[] = [
  {
    name: 'Insight Analytics', productType: 'SAAS', currencies: ['USD', 'EUR'],
    dimensions: [
      dim('analyst_seats', 'Analyst seats', 'Users', 'COMMIT', { USD: 40, EUR: 37 }, 'Named analysts for the contract term'),
      dim('queries_million', 'Queries', 'Million queries', 'METERED', { USD: 0.5, EUR: 0.46 }, 'Queries run, per million'),
      dim('storage_gb', 'Storage', 'GB-months', 'METERED', { USD: 0.1, EUR: 0.09 }, 'Data stored, per GB and month'),
    ],
  },
  {
    name: 'Vault Backup', productType: 'AMI', currencies: ['USD'],
    dimensions: [
      dim('protected_tb', 'Protected capacity', 'TB', 'COMMIT', { USD: 25 }, 'Terabytes under protection for the contract term'),
      dim('vault_hours', 'Vault instance hours', 'Hours', 'METERED', { USD: 0.12 }, 'Hours the backup vault instance runs'),
    ],
  },
  {
    name: 'Streamline ETL', productType: 'SAAS', currencies: ['USD', 'GBP'],
    dimensions: [
      dim('pipelines', 'Pipelines', 'Pipelines', 'COMMIT', { USD: 300, GBP: 240 }, 'Scheduled pipelines for the contract term'),
      dim('connectors', 'Connectors', 'Connectors', 'COMMIT', { USD: 50, GBP: 40 }, 'Source and target connectors'),
      dim('rows_million', 'Rows processed', 'Million rows', 'METERED', { USD: 1.2, GBP: 0.95 }, 'Rows moved, per million'),
    ],
  },
  {
    name: 'Sentinel Security', productType: 'CONTAINER', currencies: ['USD', 'JPY'],
    dimensions: [dim('protected_nodes', 'Protected nodes', 'Nodes', 'COMMIT', { USD: 18, JPY: 2700 }, 'Cluster nodes protected for the contract term')],
  },
  {
    name: 'Atlas Search', productType: 'SAAS', currencies: ['USD', 'EUR'],
    dimensions: [
      dim('search_units', 'Search units', 'Units', 'COMMIT', { USD: 500, EUR: 460 }, 'Provisioned search capacity'),
      dim('replicas', 'Replicas', 'Replicas', 'COMMIT', { USD: 120, EUR: 110 }, 'Read replicas'),
      dim('queries_thousand', 'Queries', 'Thousand queries', 'METERED', { USD: 0.8, EUR: 0.74 }, 'Search queries, per thousand'),
      dim('index_gb', 'Index size', 'GB-months', 'METERED', { USD: 0.25, EUR: 0.23 }, 'Indexed data, per GB and month'),
    ],
  },
  {
    name: 'Pulse Monitoring', productType: 'VM', currencies: ['USD'],
    dimensions: [dim('monitored_hosts', 'Monitored hosts', 'Hosts', 'COMMIT', { USD: 15 }, 'Hosts monitored for the contract term')],
  },
  {
    name: 'Beacon Identity', productType: 'SAAS', currencies: ['USD', 'EUR', 'GBP'],
    dimensions: [
      dim('monthly_active_users', 'Monthly active users', 'Users', 'COMMIT', { USD: 3, EUR: 2.8, GBP: 2.4 }, 'Users signing in each month'),
      dim('sms_messages', 'SMS messages', 'Messages', 'METERED', { USD: 0.05, EUR: 0.05, GBP: 0.04 }, 'One-time codes sent by SMS'),
    ],
  },
  {
    name: 'Harbor Containers', productType: 'PROFESSIONAL_SERVICES', currencies: ['USD'],
    dimensions: [dim('consulting_days', 'Consulting days', 'Days', 'COMMIT', { USD: 1800 }, 'Days of on-site or remote consulting')],
  },
  {
    name: 'Ledger Reports Classic', productType: 'SAAS', currencies: ['USD'],
    dimensions: [dim('report_seats', 'Report seats', 'Users', 'COMMIT', { USD: 20 }, 'Named report users')],
  },
];

/** Dimensions a product can gain later (the change kind `product`), one list per kind of unit. */
export const EXTRA_DIMENSIONS: readonly Omit<ProductDimension, 'prices'>[] = [
  { key: 'premium_support', name: 'Premium support', description: 'Named support engineer, per month', unit: 'Months', type: 'COMMIT' },
  { key: 'api_calls_thousand', name: 'API calls', description: 'API calls, per thousand', unit: 'Thousand calls', type: 'METERED' },
  { key: 'sandbox_environments', name: 'Sandbox environments', description: 'Non-production environments', unit: 'Environments', type: 'COMMIT' },
];

/** A list price as a marketplace keeps it: whole units for currencies without minor units, else up to four decimals. */
export function roundPrice(currency: string, value: number): number {
  if (currency === 'JPY' || currency === 'KRW') return Math.round(value);
  return Math.round(value * 10_000) / 10_000;
}
