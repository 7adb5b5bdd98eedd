// What `crm-sync setup` keeps of the catalogue's ids (cli/setup-catalogue.ts): what it found when that
// differs from what the connection keeps (a new price list, another price book), nothing when it found
// none (setup's problems say why, and the kept ids stay), and the report's line naming each id.
import { describe, expect, it } from 'vitest';
import { catalogueIdsToSave, catalogueNote, choosesCatalogue } from '../../cli/setup-catalogue.ts';

describe('setup and the catalogue ids', () => {
  const kept = { unitGroupId: 'g-1', baseUnitId: 'u-1', 'priceList:USD': 'p-usd' };

  it('keeps what setup found when it differs, and nothing new otherwise', () => {
    expect(catalogueIdsToSave(undefined, { priceBookId: '01s1', standardPriceBookId: '01s0' })).toEqual({ priceBookId: '01s1', standardPriceBookId: '01s0' });
    expect(catalogueIdsToSave(kept, { ...kept })).toBeUndefined();
    expect(catalogueIdsToSave(kept, { ...kept, 'priceList:EUR': 'p-eur' })).toEqual({ unitGroupId: 'g-1', baseUnitId: 'u-1', 'priceList:USD': 'p-usd', 'priceList:EUR': 'p-eur' });
    expect(catalogueIdsToSave(kept, { unitGroupId: 'g-2', baseUnitId: 'u-1', 'priceList:USD': 'p-usd' })).toEqual({ unitGroupId: 'g-2', baseUnitId: 'u-1', 'priceList:USD': 'p-usd' });
    expect(catalogueIdsToSave({ priceBookId: '01s1', standardPriceBookId: '01s0' }, { standardPriceBookId: '01s0' })).toEqual({ standardPriceBookId: '01s0' });
  });

  it('leaves the kept ids when setup found none', () => {
    expect(catalogueIdsToSave(kept, {})).toBeUndefined();
    expect(catalogueIdsToSave(kept, undefined)).toBeUndefined();
  });

  it('is chosen by the catalogue entity', () => {
    expect(choosesCatalogue({ entities: ['buyer', 'catalogue'] })).toBe(true);
    expect(choosesCatalogue({ entities: ['buyer', 'timeline'] })).toBe(false);
  });

  it('names each id in the CRM words, the price book as the connection names it', () => {
    expect(catalogueNote('acme', { priceBookId: '01s1', standardPriceBookId: '01s0' }, `Acme's "EU"`)).toBe(`acme now writes the product catalogue with: price book "Acme's "EU"" 01s1, the standard price book 01s0.`);
    expect(catalogueNote('acme', { unitGroupId: 'g', baseUnitId: 'u', 'priceList:JPY': 'p' }, 'Book')).toBe('acme now writes the product catalogue with: unit group g, base unit u, price list "Book (JPY)" p.');
  });
});
