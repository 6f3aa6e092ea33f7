/** ISO 20022 formats of the `sepa_eur` rail (docs/rails.md "ISO 20022 schemas"); no I/O but `validateIso20022`. */
export { decimalToMinor, minorToDecimal, sumMinor } from './amounts';
export { parseCamt053, writeCamt053, type Camt053Balance, type Camt053Input, type Camt053Statement } from './camt053';
export { parseCamt054, writeCamt054, type Camt054Entry, type Camt054EntryInput, type Camt054Input, type Camt054Notification } from './camt054';
export { parsePain001, SEPA_NAME_MAX, SEPA_REMITTANCE_MAX, writePain001, type Pain001File, type Pain001Input, type Pain001Transfer } from './pain001';
export { parsePain002, writePain002, type Pain002Input, type Pain002Report, type Pain002StatusInput, type Pain002Transaction } from './pain002';
export { configureIso20022Tools, type Iso20022Tools, iso20022Tools, loadSchema, PINNED_SCHEMAS, schemaAvailable, schemaDir } from './schemas';
export { sepaPain001RuleErrors } from './sepa-rules';
export { isSepaIdentifier, toSepaText, type SepaTextResult } from './sepa-text';
export { validateIso20022, type Iso20022Validation } from './validate';
export { Iso20022ParseError, MAX_ISO20022_BYTES, type Iso20022Message } from './xml';
