/** BAI2 statements (docs/treasury.md "BAI2"): the parser, and the writer the test bank uses. */
export { bai2CreditDebit, Bai2ParseError, MAX_BAI2_BYTES, parseBai2, type Bai2Account, type Bai2File, type Bai2Group, type Bai2Transaction } from './parse';
export { writeBai2, type Bai2Input, type Bai2TransactionInput } from './write';
