// Contact -> contact, keyed by ccs_commercecontactid and bound to its buyer's account through
// parentcustomerid (navigation property parentcustomerid_account). One contact per email is the
// connector's job, not this mapping's: a commerce contact whose emailaddress1 another contact already
// holds is written onto that contact, so a person on two buyers is one Dynamics contact.
import type { Contact } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { defined } from '../values.ts';

export const contactToDynamicsContact: EntityMapping<Contact> = {
  entity: 'contact',
  object: 'contact',
  externalIdField: 'ccs_commercecontactid',
  picklists: {},
  describe: {
    emailaddress1: 'contact.email',
    firstname: 'contact.firstName',
    lastname: 'contact.lastName (none written when absent: Dataverse does not require it from the Web API)',
    telephone1: 'contact.phone',
    jobtitle: 'contact.title',
    parentcustomerid_account: "the buyer's account, by ccs_commercebuyerid = contact.buyerID",
  },
  map(contact) {
    if (!contact.id) return fail('the contact has no id');
    return ok({
      object: 'contact',
      externalIdField: 'ccs_commercecontactid',
      externalId: contact.id,
      fields: defined({
        emailaddress1: contact.email,
        firstname: contact.firstName,
        lastname: contact.lastName,
        telephone1: contact.phone,
        jobtitle: contact.title,
        parentcustomerid_account: contact.buyerID ? { ccs_commercebuyerid: contact.buyerID } : undefined,
      }),
    });
  },
};
