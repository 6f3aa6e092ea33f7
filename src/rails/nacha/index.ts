/**
 * NACHA file format of the `ach_usd` bank rail (docs/rails-ach.md): text conversion to the
 * NACHA character set, the writer of our credit files (and of the return/NOC files a bank sends
 * back), and the parser of every file the bank sends. Pure: no I/O.
 */
export {
  isCreditTransactionCode,
  NACHA_BLOCKING_FACTOR,
  NACHA_RECORD_LENGTH,
  NachaInputError,
  writeNachaFile,
  writeNachaReturnFile,
  type NachaBatchInput,
  type NachaCreditEntryInput,
  type NachaFileInput,
  type NachaReturnAddendaInput,
  type NachaReturnBatchInput,
  type NachaReturnEntryInput,
  type NachaReturnFileInput,
  type SecCode,
} from './file';
export {
  NachaParseError,
  parseNachaFile,
  type NachaAddenda05,
  type NachaNotificationOfChange,
  type NachaReturn,
  type ParsedNachaBatch,
  type ParsedNachaEntry,
  type ParsedNachaFile,
} from './parse';
export { isNachaText, NACHA_CHARACTERS, toNachaText } from './text';
