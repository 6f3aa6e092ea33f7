/**
 * BAI2, the US bank balance reporting format (docs/treasury.md "BAI2"): the parser of the
 * end-of-day statements our USD settlement account's bank sends, and the writer the test bank uses.
 * Pure: no I/O.
 */
export { bai2CreditDebit, Bai2ParseError, MAX_BAI2_BYTES, parseBai2, type Bai2Account, type Bai2File, type Bai2Group, type Bai2Transaction } from './parse';
export { writeBai2, type Bai2Input, type Bai2TransactionInput } from './write';
