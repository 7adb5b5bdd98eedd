// Contact -> contact, keyed by ccs_commercecontactid and bound to its buyer's account through
// parentcustomerid (navigation property parentcustomerid_account). One contact per email is the
// connector's job, not this mapping's: a commerce contact whose emailaddress1 another contact already
// holds is written onto that contact, so a person on two buyers is one Dynamics contact. The values are
// the canonical contact's (mappings/canonical/contact.ts).
import type { Contact } from '../../commerce/models.ts';
import { CONTACT } from '../canonical/contact.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const contactToDynamicsContact: EntityMapping<Contact> = canonicalMapping(CONTACT, {
  object: 'contact',
  externalIdField: 'ccs_commercecontactid',
  fields: {
    emailaddress1: 'email',
    firstname: 'firstName',
    lastname: { describe: 'contact.lastName (none written when absent: Dataverse does not require it from the Web API)', value: (record) => record.lastName },
    telephone1: 'phone',
    jobtitle: 'title',
    parentcustomerid_account: lookup('buyerId', 'ccs_commercebuyerid', "the buyer's account, by ccs_commercebuyerid = contact.buyerID"),
  },
});
