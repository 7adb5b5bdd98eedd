// The sales catalogue's tables as Microsoft's table references describe them (issue #28;
// docs/crm-wire-behaviour.md, Dynamics "Products and line items"): unit groups (uomschedule) and their
// units (uom), products (product: a unit group and default unit, decimals supported, structure, state
// Active 0 / Retired 1 / Draft 2 / Under Revision 3), price lists (pricelevel, in a transaction currency),
// price list items (productpricelevel: one price per product and unit in a price list), opportunity
// products (opportunityproduct) and the opportunity's price list (opportunity.pricelevelid). The rules
// they keep are catalogue.ts's.
import { attr, nameGuid, relationship, SYSTEM, type AttributeDef, type EntityDef } from './schema.ts';

const MONEY = { Precision: 2, MinValue: -922337203685477, MaxValue: 922337203685477 };

/** A lookup to the transaction currency (currencies.ts serves the currencies; catalogue.ts binds them). */
const currency = (table: string) => attr(table, 'transactioncurrencyid', 'Lookup', { Targets: ['transactioncurrency'] });
const currencyRelationship = (table: string) => relationship(table, 'transactioncurrencyid', 'transactioncurrency', 'transactioncurrencyid', 'transactioncurrencyid');

const table = (logical: string, schema: string, set: string, id: string, name: string, display: string, attributes: AttributeDef[], relationships: EntityDef['ManyToOneRelationships']): EntityDef => ({
  LogicalName: logical, SchemaName: schema, EntitySetName: set, PrimaryIdAttribute: id, PrimaryNameAttribute: name,
  IsCustomEntity: false, MetadataId: nameGuid(`entity:${logical}`), DisplayName: display, Attributes: attributes, Keys: [], ManyToOneRelationships: relationships,
});

/** With its states' options: `states` statecode values, `reasons` statuscode values. */
const states = (attributes: AttributeDef[], states: number[], reasons: number[]) =>
  attributes.map((a) => (a.LogicalName === 'statecode' ? { ...a, Options: states } : a.LogicalName === 'statuscode' ? { ...a, Options: reasons } : a));

export function salesCatalogueEntities(): EntityDef[] {
  const uomschedule = table('uomschedule', 'UoMSchedule', 'uomschedules', 'uomscheduleid', 'name', 'Unit Group', [
    ...SYSTEM('uomschedule', 'uomscheduleid'),
    attr('uomschedule', 'name', 'String', { MaxLength: 200, IsPrimaryName: true, RequiredLevel: 'ApplicationRequired' }),
    attr('uomschedule', 'baseuomname', 'String', { MaxLength: 100, RequiredLevel: 'ApplicationRequired' }),
    attr('uomschedule', 'description', 'Memo', { MaxLength: 2000 }),
  ], []);
  const uom = table('uom', 'UoM', 'uoms', 'uomid', 'name', 'Unit', [
    ...SYSTEM('uom', 'uomid'),
    attr('uom', 'name', 'String', { MaxLength: 100, IsPrimaryName: true, RequiredLevel: 'ApplicationRequired' }),
    attr('uom', 'uomscheduleid', 'Lookup', { Targets: ['uomschedule'], RequiredLevel: 'ApplicationRequired' }),
    attr('uom', 'baseuom', 'Lookup', { Targets: ['uom'], RequiredLevel: 'ApplicationRequired' }),
    attr('uom', 'quantity', 'Decimal', { Precision: 10, MinValue: 0, MaxValue: 1_000_000_000 }),
    attr('uom', 'isschedulebaseuom', 'Boolean', { IsValidForCreate: false, IsValidForUpdate: false }),
  ], [relationship('uom', 'uomscheduleid', 'uomschedule', 'uomscheduleid', 'uomscheduleid'), relationship('uom', 'baseuom', 'uom', 'baseuom', 'uomid')]);
  const pricelevel = table('pricelevel', 'PriceLevel', 'pricelevels', 'pricelevelid', 'name', 'Price List', [
    ...SYSTEM('pricelevel', 'pricelevelid'),
    attr('pricelevel', 'name', 'String', { MaxLength: 100, IsPrimaryName: true, RequiredLevel: 'ApplicationRequired' }),
    attr('pricelevel', 'description', 'Memo', { MaxLength: 2000 }),
    attr('pricelevel', 'begindate', 'DateTime', { Format: 'DateOnly', DateTimeBehavior: 'UserLocal' }),
    attr('pricelevel', 'enddate', 'DateTime', { Format: 'DateOnly', DateTimeBehavior: 'UserLocal' }),
    currency('pricelevel'),
  ], [currencyRelationship('pricelevel')]);
  const product = table('product', 'Product', 'products', 'productid', 'name', 'Product', [
    // Active 0 (Active 1), Retired 1 (Retired 2), Draft 2 (Draft 0), Under Revision 3 (Under Revision 3).
    ...states(SYSTEM('product', 'productid'), [0, 1, 2, 3], [0, 1, 2, 3]),
    attr('product', 'name', 'String', { MaxLength: 100, IsPrimaryName: true, RequiredLevel: 'ApplicationRequired' }),
    attr('product', 'productnumber', 'String', { MaxLength: 100, RequiredLevel: 'ApplicationRequired' }),
    attr('product', 'description', 'Memo', { MaxLength: 2000 }),
    attr('product', 'price', 'Money', MONEY),
    attr('product', 'quantitydecimal', 'Integer', { MinValue: 0, MaxValue: 5, RequiredLevel: 'ApplicationRequired' }),
    attr('product', 'productstructure', 'Picklist', { Options: [1, 2, 3], OptionLabels: { 1: 'Product', 2: 'Product Family', 3: 'Product Bundle' } }),
    attr('product', 'defaultuomscheduleid', 'Lookup', { Targets: ['uomschedule'], RequiredLevel: 'ApplicationRequired' }),
    attr('product', 'defaultuomid', 'Lookup', { Targets: ['uom'], RequiredLevel: 'ApplicationRequired' }),
    attr('product', 'pricelevelid', 'Lookup', { Targets: ['pricelevel'] }),
    attr('product', 'parentproductid', 'Lookup', { Targets: ['product'] }),
    currency('product'),
  ], [
    relationship('product', 'defaultuomscheduleid', 'uomschedule', 'defaultuomscheduleid', 'uomscheduleid'),
    relationship('product', 'defaultuomid', 'uom', 'defaultuomid', 'uomid'),
    relationship('product', 'pricelevelid', 'pricelevel', 'pricelevelid', 'pricelevelid'),
    relationship('product', 'parentproductid', 'product', 'parentproductid', 'productid'),
    currencyRelationship('product'),
  ]);
  const productpricelevel = table('productpricelevel', 'ProductPriceLevel', 'productpricelevels', 'productpricelevelid', 'productidname', 'Price List Item', [
    ...SYSTEM('productpricelevel', 'productpricelevelid'),
    attr('productpricelevel', 'productidname', 'String', { MaxLength: 100, IsPrimaryName: true, IsValidForCreate: false, IsValidForUpdate: false, computed: true }),
    attr('productpricelevel', 'pricelevelid', 'Lookup', { Targets: ['pricelevel'], RequiredLevel: 'ApplicationRequired' }),
    attr('productpricelevel', 'productid', 'Lookup', { Targets: ['product'], RequiredLevel: 'ApplicationRequired' }),
    attr('productpricelevel', 'uomid', 'Lookup', { Targets: ['uom'], RequiredLevel: 'ApplicationRequired' }),
    attr('productpricelevel', 'uomscheduleid', 'Lookup', { Targets: ['uomschedule'], IsValidForCreate: false, IsValidForUpdate: false }),
    attr('productpricelevel', 'amount', 'Money', MONEY),
    attr('productpricelevel', 'percentage', 'Decimal', { Precision: 2, MinValue: 0, MaxValue: 100_000 }),
    // Currency Amount 1, Percent of List 2, and markups and margins on current or standard cost 3-6.
    attr('productpricelevel', 'pricingmethodcode', 'Picklist', { Options: [1, 2, 3, 4, 5, 6], OptionLabels: { 1: 'Currency Amount', 2: 'Percent of List', 3: 'Percent Markup - Current Cost', 4: 'Percent Margin - Current Cost', 5: 'Percent Markup - Standard Cost', 6: 'Percent Margin - Standard Cost' } }),
    attr('productpricelevel', 'quantitysellingcode', 'Picklist', { Options: [1, 2, 3], OptionLabels: { 1: 'No Control', 2: 'Whole', 3: 'Whole and Fractional' } }),
    attr('productpricelevel', 'transactioncurrencyid', 'Lookup', { Targets: ['transactioncurrency'], IsValidForCreate: false, IsValidForUpdate: false }),
  ], [
    relationship('productpricelevel', 'pricelevelid', 'pricelevel', 'pricelevelid', 'pricelevelid'),
    relationship('productpricelevel', 'productid', 'product', 'productid', 'productid'),
    relationship('productpricelevel', 'uomid', 'uom', 'uomid', 'uomid'),
  ]);
  const opportunityproduct = table('opportunityproduct', 'OpportunityProduct', 'opportunityproducts', 'opportunityproductid', 'opportunityproductname', 'Opportunity Product', [
    ...SYSTEM('opportunityproduct', 'opportunityproductid'),
    attr('opportunityproduct', 'opportunityproductname', 'String', { MaxLength: 500, IsPrimaryName: true }),
    attr('opportunityproduct', 'opportunityid', 'Lookup', { Targets: ['opportunity'], RequiredLevel: 'SystemRequired' }),
    attr('opportunityproduct', 'productid', 'Lookup', { Targets: ['product'] }),
    attr('opportunityproduct', 'uomid', 'Lookup', { Targets: ['uom'] }),
    attr('opportunityproduct', 'productdescription', 'String', { MaxLength: 500 }),
    attr('opportunityproduct', 'description', 'Memo', { MaxLength: 2000 }),
    attr('opportunityproduct', 'quantity', 'Decimal', { Precision: 5, MinValue: 0, MaxValue: 1_000_000_000_000 }),
    attr('opportunityproduct', 'priceperunit', 'Money', MONEY),
    attr('opportunityproduct', 'manualdiscountamount', 'Money', MONEY),
    attr('opportunityproduct', 'ispriceoverridden', 'Boolean'),
    attr('opportunityproduct', 'isproductoverridden', 'Boolean'),
    // Dataverse's to fill (catalogue.ts): the amounts and the pricing error of the line.
    attr('opportunityproduct', 'baseamount', 'Money', { ...MONEY, IsValidForCreate: false, IsValidForUpdate: false }),
    attr('opportunityproduct', 'extendedamount', 'Money', { ...MONEY, IsValidForCreate: false, IsValidForUpdate: false }),
    attr('opportunityproduct', 'pricingerrorcode', 'Picklist', {
      Options: [0, 2, 4, 11],
      OptionLabels: { 0: 'None', 2: 'Missing Price Level', 4: 'Missing Quantity', 11: 'Product Not In Price Level' },
      IsValidForCreate: false,
      IsValidForUpdate: false,
    }),
  ], [
    relationship('opportunityproduct', 'opportunityid', 'opportunity', 'opportunityid', 'opportunityid'),
    relationship('opportunityproduct', 'productid', 'product', 'productid', 'productid'),
    relationship('opportunityproduct', 'uomid', 'uom', 'uomid', 'uomid'),
  ]);
  return [uomschedule, uom, pricelevel, product, productpricelevel, opportunityproduct];
}

/** The standard tables with the catalogue's, and the opportunity's price list (pricelevelid). */
export function withSalesCatalogue(entities: EntityDef[]): EntityDef[] {
  const withPriceList = entities.map((entity) =>
    entity.LogicalName !== 'opportunity'
      ? entity
      : {
          ...entity,
          Attributes: [...entity.Attributes, attr('opportunity', 'pricelevelid', 'Lookup', { Targets: ['pricelevel'] })],
          ManyToOneRelationships: [...entity.ManyToOneRelationships, relationship('opportunity', 'pricelevelid', 'pricelevel', 'pricelevelid', 'pricelevelid')],
        },
  );
  return [...withPriceList, ...salesCatalogueEntities()];
}
