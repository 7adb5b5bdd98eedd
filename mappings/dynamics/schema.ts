// What the project needs in a Dataverse environment (mappings/dynamics/README.md): per table, the custom
// columns, lookups and alternate keys `crm-sync setup` creates (publisher prefix ccs_), the custom tables
// it creates whole, and the standard columns the mappings write (checked, never created). The mappings
// write exactly these; test/unit/dynamics-mappings.test.ts holds them to it.
import { USAGE_SUMMARY_COLUMNS, USAGE_TABLE } from './usage-schema.ts';

import { OFFER_APPROVAL_OPTION, OPPORTUNITY_OFFER_COLUMNS } from './opportunity-offer-lines.ts';
import { LIVE_AGREEMENT_ACCOUNT_COLUMNS, RENEWAL_ENTITLEMENT_LOOKUPS, RENEWAL_OPPORTUNITY_COLUMNS, RENEWAL_OPPORTUNITY_KEYS, RENEWAL_OPPORTUNITY_LOOKUPS } from './renewal-schema.ts';

/** Choice: Dataverse's (local) choice column, a Picklist attribute holding one integer option value. */
export type ColumnType = 'String' | 'Memo' | 'Boolean' | 'Decimal' | 'DateTime' | 'DateOnly' | 'Integer' | 'Choice';
export type ChoiceOption = { value: number; label: string };
/** options: a Choice column's options (values in the publisher's range, 100000000 up). */
export type ColumnDeclaration = { logicalName: string; label: string; type: ColumnType; maxLength?: number; precision?: number; options?: ChoiceOption[] };
/** target: the table logical name the lookup points at. */
export type LookupDeclaration = { logicalName: string; label: string; target: string };
export type KeyDeclaration = { logicalName: string; label: string; columns: string[] };
export type TableDeclaration = {
  logicalName: string;
  entitySetName: string;
  label: string;
  pluralLabel: string;
  /** false: a standard table (account, contact, opportunity): only its custom columns, lookups and keys are created. */
  custom: boolean;
  /** Custom tables only. */
  primaryName?: { logicalName: string; label: string; maxLength: number };
  /** Standard columns the mappings write, checked (not created) by setup. */
  standardColumns?: string[];
  columns: ColumnDeclaration[];
  lookups: LookupDeclaration[];
  keys: KeyDeclaration[];
};

export const PUBLISHER_PREFIX = 'ccs_';

/**
 * The option values of opportunity.ccs_coselldecision, what the Web API reads and writes (the labels
 * Accept and Reject are for people). A publisher's options start at its option value prefix times
 * 10,000: 100000000 for the default prefix 10000.
 */
export const COSELL_DECISION_OPTION = { accept: 100_000_000, reject: 100_000_001 } as const;

/** Text lengths: commerce and marketplace ids, names and codes, urls, error text. */
const ID_LENGTH = 100;
/** Marketplace agreement/subscription ids (ARNs, resource paths such as providers/p/entitlements/e) run longer. */
const MARKETPLACE_ID_LENGTH = 400;
const NAME_LENGTH = 400;
const URL_LENGTH = 2000;
const ERRORS_LENGTH = 100_000;
/** Payment installments, one "2026-01-01: 10,000.00 USD" line each. */
const INSTALLMENTS_LENGTH = 10_000;
/** A seller's reason for accepting or rejecting a referral. */
const DECISION_REASON_LENGTH = 1000;

const text = (logicalName: string, label: string, maxLength = ID_LENGTH): ColumnDeclaration => ({ logicalName, label, type: 'String', maxLength });
const decimal = (logicalName: string, label: string): ColumnDeclaration => ({ logicalName, label, type: 'Decimal', precision: 2 });
const yesNo = (logicalName: string, label: string): ColumnDeclaration => ({ logicalName, label, type: 'Boolean' });
const key = (column: string, label: string): KeyDeclaration => ({ logicalName: `${column}_key`, label, columns: [column] });

/**
 * Lookups written under a navigation property that is not the lookup column's logical name: the standard
 * multi-table lookups (contact's parentcustomerid, a Customer lookup, is bound to an account as
 * parentcustomerid_account). Custom lookups are made with lowercase schema names, so theirs are equal.
 */
export const NAVIGATION_PROPERTIES: Record<string, Record<string, string>> = {
  contact: { parentcustomerid_account: 'parentcustomerid' },
};

export const DYNAMICS_TABLES: TableDeclaration[] = [
  {
    logicalName: 'account',
    entitySetName: 'accounts',
    label: 'Account',
    pluralLabel: 'Accounts',
    custom: false,
    standardColumns: ['name', 'websiteurl', 'address1_country'],
    columns: [
      text('ccs_commercebuyerid', 'Commerce Buyer Id'),
      text('ccs_marketplace', 'Marketplace'),
      text('ccs_marketplaceaccountid', 'Marketplace Account Id'),
      text('ccs_marketplacestatus', 'Marketplace Status'),
      // The buyer has a live marketplace agreement (issue #25 section 3): mappings/dynamics/renewal-schema.ts.
      ...LIVE_AGREEMENT_ACCOUNT_COLUMNS,
    ],
    lookups: [],
    keys: [key('ccs_commercebuyerid', 'Commerce Buyer Id')],
  },
  {
    logicalName: 'contact',
    entitySetName: 'contacts',
    label: 'Contact',
    pluralLabel: 'Contacts',
    custom: false,
    standardColumns: ['emailaddress1', 'firstname', 'lastname', 'telephone1', 'jobtitle', 'parentcustomerid'],
    columns: [text('ccs_commercecontactid', 'Commerce Contact Id')],
    lookups: [],
    keys: [key('ccs_commercecontactid', 'Commerce Contact Id')],
  },
  {
    logicalName: 'opportunity',
    entitySetName: 'opportunities',
    label: 'Opportunity',
    pluralLabel: 'Opportunities',
    custom: false,
    standardColumns: ['name', 'stepname', 'statecode', 'estimatedclosedate', 'estimatedvalue', 'parentaccountid'],
    columns: [
      text('ccs_commerceofferid', 'Commerce Offer Id'),
      text('ccs_commercereferralid', 'Commerce Referral Id'),
      text('ccs_marketplace', 'Marketplace'),
      text('ccs_offertype', 'Offer Type'),
      text('ccs_offerstatus', 'Offer Status'),
      text('ccs_offerurl', 'Offer URL', URL_LENGTH),
      { logicalName: 'ccs_offerexpiration', label: 'Offer Expiration', type: 'DateTime' },
      yesNo('ccs_cosellshare', 'Co-sell Share'),
      text('ccs_cosellpartner', 'Co-sell Partner'),
      text('ccs_cosellstatus', 'Co-sell Status'),
      text('ccs_cosellstage', 'Co-sell Stage'),
      { logicalName: 'ccs_cosellerrors', label: 'Co-sell Errors', type: 'Memo', maxLength: ERRORS_LENGTH },
      { logicalName: 'ccs_coselldrafterrors', label: 'Co-sell Draft Errors', type: 'Memo', maxLength: ERRORS_LENGTH },
      yesNo('ccs_privateofferrequested', 'Private Offer Requested'),
      text('ccs_commerceproductid', 'Commerce Product Id'),
      text('ccs_referraldirection', 'Referral Direction'),
      // The referral's lifecycle from the CRM (issue #24): an optional second signal to submit, the
      // seller's decision on an inbound referral and its reason, and when the partner's review ends. A
      // loss is Dataverse's own: statecode 2 Lost with statuscode 4 Canceled or 5 Out-Sold.
      yesNo('ccs_cosellsubmit', 'Co-sell Submit'),
      {
        logicalName: 'ccs_coselldecision',
        label: 'Co-sell Decision',
        type: 'Choice',
        options: [
          { value: COSELL_DECISION_OPTION.accept, label: 'Accept' },
          { value: COSELL_DECISION_OPTION.reject, label: 'Reject' },
        ],
      },
      text('ccs_coselldecisionreason', 'Co-sell Decision Reason', DECISION_REASON_LENGTH),
      { logicalName: 'ccs_cosellreviewends', label: 'Co-sell Review Ends', type: 'DateTime' },
      // Renewals (issue #25 section 3): mappings/dynamics/renewal-schema.ts.
      ...RENEWAL_OPPORTUNITY_COLUMNS,
      // A private offer from the opportunity's products (issue #28 section 2): its own terms, a deal
      // desk's approval (the connection's cosell.offerApproval may name these), a new expiry and a cancel request.
      { logicalName: OPPORTUNITY_OFFER_COLUMNS.durationMonths, label: 'Offer Duration Months', type: 'Integer' },
      { logicalName: OPPORTUNITY_OFFER_COLUMNS.paymentSchedule, label: 'Offer Payment Schedule', type: 'Memo', maxLength: INSTALLMENTS_LENGTH },
      {
        logicalName: OPPORTUNITY_OFFER_COLUMNS.approvalStatus,
        label: 'Offer Approval Status',
        type: 'Choice',
        options: Object.entries(OFFER_APPROVAL_OPTION).map(([label, value]) => ({ value, label })),
      },
      text(OPPORTUNITY_OFFER_COLUMNS.approvedBy, 'Offer Approved By', NAME_LENGTH),
      { logicalName: OPPORTUNITY_OFFER_COLUMNS.approvedAt, label: 'Offer Approved At', type: 'DateTime' },
      { logicalName: OPPORTUNITY_OFFER_COLUMNS.newExpiry, label: 'Offer New Expiry Date', type: 'DateOnly' },
      yesNo(OPPORTUNITY_OFFER_COLUMNS.cancel, 'Offer Cancel Requested'),
    ],
    lookups: [...RENEWAL_OPPORTUNITY_LOOKUPS],
    keys: [key('ccs_commerceofferid', 'Commerce Offer Id'), key('ccs_commercereferralid', 'Commerce Referral Id'), ...RENEWAL_OPPORTUNITY_KEYS],
  },
  {
    logicalName: 'ccs_marketplaceentitlement',
    entitySetName: 'ccs_marketplaceentitlements',
    label: 'Marketplace Entitlement',
    pluralLabel: 'Marketplace Entitlements',
    custom: true,
    primaryName: { logicalName: 'ccs_name', label: 'Name', maxLength: NAME_LENGTH },
    columns: [
      text('ccs_entitlementid', 'Commerce Entitlement Id'),
      text('ccs_status', 'Status'),
      { logicalName: 'ccs_startdate', label: 'Start Date', type: 'DateTime' },
      { logicalName: 'ccs_enddate', label: 'End Date', type: 'DateTime' },
      decimal('ccs_commitamount', 'Commit Amount'),
      decimal('ccs_usedcommitamount', 'Used Commit Amount'),
      decimal('ccs_creditamount', 'Credit Amount'),
      decimal('ccs_usedcreditamount', 'Used Credit Amount'),
      decimal('ccs_annualizedamount', 'Annualized Amount'),
      text('ccs_currency', 'Currency', 10),
      text('ccs_marketplace', 'Marketplace'),
      text('ccs_marketplaceagreementid', 'Marketplace Agreement Id', MARKETPLACE_ID_LENGTH),
      text('ccs_marketplacesubscriptionid', 'Marketplace Subscription Id', MARKETPLACE_ID_LENGTH),
      text('ccs_productid', 'Product Id'),
      text('ccs_offerid', 'Offer Id'),
      // Revenue and agreement (issue #25 section 2).
      decimal('ccs_invoicedamount', 'Invoiced Amount'),
      decimal('ccs_grossamount', 'Gross Amount'),
      decimal('ccs_collectableamount', 'Collectable Amount'),
      decimal('ccs_disbursedamount', 'Disbursed Amount'),
      decimal('ccs_reportedamount', 'Reported Amount'),
      { logicalName: 'ccs_nettermsdays', label: 'Net Terms (Days)', type: 'Integer' },
      yesNo('ccs_autorenew', 'Auto Renew'),
      text('ccs_agreementstatus', 'Agreement Status'),
      text('ccs_agreementpdfurl', 'Agreement PDF URL', URL_LENGTH),
      text('ccs_agreementpdfnote', 'Agreement PDF Note', NAME_LENGTH),
      text('ccs_initialagreementid', 'Initial Agreement Id', MARKETPLACE_ID_LENGTH),
      { logicalName: 'ccs_paymentinstallments', label: 'Payment Installments', type: 'Memo', maxLength: INSTALLMENTS_LENGTH },
      // Its usage so far (issue #25 section 4): mappings/dynamics/usage-schema.ts.
      ...USAGE_SUMMARY_COLUMNS,
    ],
    lookups: [
      { logicalName: 'ccs_accountid', label: 'Account', target: 'account' },
      { logicalName: 'ccs_opportunityid', label: 'Opportunity', target: 'opportunity' },
      ...RENEWAL_ENTITLEMENT_LOOKUPS,
    ],
    keys: [key('ccs_entitlementid', 'Commerce Entitlement Id')],
  },
  {
    logicalName: 'ccs_cosellreferral',
    entitySetName: 'ccs_cosellreferrals',
    label: 'Co-sell Referral',
    pluralLabel: 'Co-sell Referrals',
    custom: true,
    primaryName: { logicalName: 'ccs_name', label: 'Name', maxLength: NAME_LENGTH },
    columns: [
      text('ccs_commercereferralid', 'Commerce Referral Id'),
      text('ccs_partner', 'Partner'),
      text('ccs_status', 'Status'),
      text('ccs_stage', 'Stage'),
      text('ccs_direction', 'Direction'),
      decimal('ccs_dealvalue', 'Deal Value'),
      text('ccs_currency', 'Currency', 10),
      { logicalName: 'ccs_expectedclosedate', label: 'Expected Close Date', type: 'DateOnly' },
    ],
    lookups: [
      { logicalName: 'ccs_accountid', label: 'Account', target: 'account' },
      { logicalName: 'ccs_opportunityid', label: 'Opportunity', target: 'opportunity' },
    ],
    keys: [key('ccs_commercereferralid', 'Commerce Referral Id')],
  },
  {
    logicalName: 'ccs_opportunitycontact',
    entitySetName: 'ccs_opportunitycontacts',
    label: 'Opportunity Contact',
    pluralLabel: 'Opportunity Contacts',
    custom: true,
    primaryName: { logicalName: 'ccs_name', label: 'Name', maxLength: NAME_LENGTH },
    columns: [text('ccs_role', 'Role')],
    lookups: [
      { logicalName: 'ccs_opportunityid', label: 'Opportunity', target: 'opportunity' },
      { logicalName: 'ccs_contactid', label: 'Contact', target: 'contact' },
    ],
    // Link rows: no alternate key.
    keys: [],
  },
  // Usage by day (issue #25 section 4).
  USAGE_TABLE,
  // The timeline (issue #27 section 1): a notification event as a task activity, keyed by its eventID.
  {
    logicalName: 'task',
    entitySetName: 'tasks',
    label: 'Task',
    pluralLabel: 'Tasks',
    custom: false,
    standardColumns: ['subject', 'description', 'scheduledend', 'actualend', 'prioritycode'],
    columns: [text('ccs_commerceeventid', 'Commerce Event Id')],
    lookups: [],
    keys: [key('ccs_commerceeventid', 'Commerce Event Id')],
  },
];

/** A table's declaration by logical name. */
export function dynamicsTable(logicalName: string): TableDeclaration | undefined {
  return DYNAMICS_TABLES.find((table) => table.logicalName === logicalName);
}
