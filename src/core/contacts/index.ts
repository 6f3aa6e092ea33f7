/** Contact recipients (a person reached by phone and/or e-mail): one core for Surfaces B and C. */
export { type ContactRecipient, contactFromRow, isContactRow } from './contact-record';
export { type CreateContactInput, createContactRecipient, type NormalisedContact, normaliseContact } from './create-contact';
export {
  encodeContactCursor,
  getContactRecipient,
  getContactRecipientByExternalId,
  getContactRecipientByPhone,
  listContactRecipients,
} from './find-contact';
