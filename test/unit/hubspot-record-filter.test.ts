// A co-sell read's narrowing as HubSpot search filter groups (issue #24 item 9): alternatives ORed as
// groups beside the window's own, typed values, and the whole window read when a part cannot be said or
// the groups would pass search's limits (5 groups, 6 filters a group, 18 in all).
import { describe, expect, it } from 'vitest';
import { searchAlternatives } from '../../crm/hubspot/record-filter.ts';
import { narrowed } from '../../crm/hubspot/search.ts';

const union = { anyOf: [{ field: 'cosell_share', equals: true }, { field: 'private_offer_requested', equals: true }, { field: 'commerce_referral_id', present: true as const }] };

describe('HubSpot narrowing of a co-sell read', () => {
  it('an OR of the passes as three alternatives, values typed as text', () => {
    expect(searchAlternatives(union)).toEqual([
      [{ propertyName: 'cosell_share', operator: 'EQ', value: 'true' }],
      [{ propertyName: 'private_offer_requested', operator: 'EQ', value: 'true' }],
      [{ propertyName: 'commerce_referral_id', operator: 'HAS_PROPERTY' }],
    ]);
    expect(searchAlternatives({ field: 'cosell_motion', oneOf: ['share', "x' OR 1=1"] })).toEqual([[{ propertyName: 'cosell_motion', operator: 'IN', values: ['share', "x' OR 1=1"] }]]);
  });

  it("oneOf on a string property goes lowercased (IN's values must be lowercase); an enumeration's, or an unknown type's, as given", () => {
    const types: Record<string, string> = { commerce_key: 'string', cosell_motion: 'enumeration' };
    const typeOf = (field: string) => types[field];
    expect(searchAlternatives({ field: 'commerce_key', oneOf: ['Prod-ABC|Dim-X', 'prod-abc|dim-x', 'Ünï "Q"'] }, typeOf)).toEqual([[{ propertyName: 'commerce_key', operator: 'IN', values: ['prod-abc|dim-x', 'ünï "q"'] }]]);
    expect(searchAlternatives({ field: 'cosell_motion', oneOf: ['Share', 'share'] }, typeOf)).toEqual([[{ propertyName: 'cosell_motion', operator: 'IN', values: ['Share', 'share'] }]]);
    expect(searchAlternatives({ anyOf: [{ field: 'other', oneOf: ['Mixed'] }, { field: 'commerce_key', oneOf: ['Mixed'] }] }, typeOf)).toEqual([
      [{ propertyName: 'other', operator: 'IN', values: ['Mixed'] }],
      [{ propertyName: 'commerce_key', operator: 'IN', values: ['mixed'] }],
    ]);
  });

  it('reads the whole window for a name HubSpot would not have or an empty list', () => {
    expect(searchAlternatives({ field: 'Cosell Share', equals: true })).toBeUndefined();
    expect(searchAlternatives({ anyOf: [{ field: 'cosell_share', equals: true }, { field: 'x', oneOf: [] }] })).toBeUndefined();
  });

  it("crosses the window's groups with the alternatives while within search's limits", () => {
    const first = [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: '1' }, { propertyName: 'hs_lastmodifieddate', operator: 'LTE', value: '9' }] }];
    const crossed = narrowed(first, searchAlternatives(union));
    expect(crossed).toHaveLength(3);
    expect(crossed[2]!.filters).toEqual([...first[0]!.filters, { propertyName: 'commerce_referral_id', operator: 'HAS_PROPERTY' }]);
    // A position's two window groups times three alternatives would be six groups: read unnarrowed.
    const position = [first[0]!, { filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GT', value: '1' }] }];
    expect(narrowed(position, searchAlternatives(union))).toBe(position);
    expect(narrowed(position, searchAlternatives({ field: 'cosell_share', equals: true }))).toHaveLength(2);
  });

  it('reads the whole window when the narrowed body would pass 3,000 characters', () => {
    const first = [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: '1' }] }];
    const alternatives = searchAlternatives({ field: 'cosell_share', equals: true });
    expect(narrowed(first, alternatives, () => false)).toBe(first);
    expect(narrowed(first, alternatives, (groups) => groups.length === 1 && groups[0]!.filters.length === 2)).toHaveLength(1);
  });
});
