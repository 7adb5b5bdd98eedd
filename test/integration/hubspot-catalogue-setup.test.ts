// HubSpot setup for the product catalogue (issue #28) against the HubSpot sandbox: the commerce group on
// products and commerce_product_id, commerce_dimension_key and commerce_price_key, none unique (HubSpot
// refuses unique-value product properties); a second run finds them; a property of another type is a problem.
import { afterEach, describe, expect, it } from 'vitest';
import { setUpHubSpotCatalogue } from '../../crm/hubspot/catalogue-setup.ts';
import { createHubSpotTransport } from '../../crm/hubspot/transport.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';

let sandbox: HubSpotSandbox | undefined;
afterEach(async () => sandbox?.stop());

const transportFor = (sb: HubSpotSandbox) => createHubSpotTransport({ baseUrl: sb.baseUrl, credentials: { auth: 'private-app', accessToken: sb.accessToken } });
const fresh = () => ({ created: [] as string[], present: [] as string[], problems: [] as string[] });

describe('HubSpot catalogue setup', () => {
  it('makes the commerce group and the three product properties once, none of them unique', async () => {
    sandbox = await startHubSpotSandbox();
    const first = fresh();
    await setUpHubSpotCatalogue(transportFor(sandbox), first);
    expect(first.problems).toEqual([]);
    expect(first.created).toEqual(['products property group "commerce"', 'products.commerce_product_id', 'products.commerce_dimension_key', 'products.commerce_price_key']);
    const response = await fetch(`${sandbox.baseUrl}/crm/v3/properties/products/commerce_price_key`, { headers: { authorization: `Bearer ${sandbox.accessToken}` } });
    expect(await response.json()).toMatchObject({ name: 'commerce_price_key', type: 'string', groupName: 'commerce', hasUniqueValue: false });
    const second = fresh();
    await setUpHubSpotCatalogue(transportFor(sandbox), second);
    expect(second).toEqual({ created: [], problems: [], present: ['products property group "commerce"', 'products.commerce_product_id', 'products.commerce_dimension_key', 'products.commerce_price_key'] });
  });

  it('names a property of another type as a problem and leaves it', async () => {
    sandbox = await startHubSpotSandbox();
    const made = await fetch(`${sandbox.baseUrl}/crm/v3/properties/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'commerce_dimension_key', label: 'Dimension', type: 'number', fieldType: 'number', groupName: 'productinformation' }),
    });
    expect(made.status).toBe(201);
    const report = fresh();
    await setUpHubSpotCatalogue(transportFor(sandbox), report);
    expect(report.problems).toEqual(['products.commerce_dimension_key exists as a number property; the sync writes it as string: change or rename it in HubSpot']);
    expect(report.created).toContain('products.commerce_price_key');
  });
});
