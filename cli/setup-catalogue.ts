// The product catalogue's part of `crm-sync setup` (issue #28 section 1), CRM-neutral: whether a
// connection chose it, which ids setup found are to be kept in the connection (crm.catalogueIds, read by
// the catalogue flows so a sync run never looks them up), and how the report names them.
import type { ConnectionSettings } from '../sync/connection-settings.ts';

/** The connection syncs the catalogue: `catalogue` is among its entities. */
export const choosesCatalogue = (settings: Pick<ConnectionSettings, 'entities'>) => settings.entities.includes('catalogue');

/**
 * The ids to keep: what setup found, when it found any and they differ from those kept. Setup that found
 * none (its problems say why) leaves the kept ones as they are.
 */
export function catalogueIdsToSave(kept: Record<string, string> | undefined, found: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!found || Object.keys(found).length === 0) return undefined;
  const same = kept && Object.keys(kept).length === Object.keys(found).length && Object.entries(found).every(([key, id]) => kept[key] === id);
  return same ? undefined : found;
}

/** What each kept id is, in the CRM's words (the keys are crm.catalogueIds'). */
function idName(key: string, priceBook: string): string {
  if (key === 'priceBookId') return `price book "${priceBook}"`;
  if (key === 'standardPriceBookId') return 'the standard price book';
  if (key === 'unitGroupId') return 'unit group';
  if (key === 'baseUnitId') return 'base unit';
  if (key.startsWith('priceList:')) return `price list "${priceBook} (${key.slice('priceList:'.length)})"`;
  return key;
}

/** The report's line saying what the connection now keeps for the catalogue. */
export function catalogueNote(connectionName: string, ids: Record<string, string>, priceBook: string): string {
  return `${connectionName} now writes the product catalogue with: ${Object.entries(ids).map(([key, id]) => `${idName(key, priceBook)} ${id}`).join(', ')}.`;
}
