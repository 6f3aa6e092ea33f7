/** NACHA file format of the `ach_usd` rail (docs/rails-ach.md): text, writer and parser. Pure. */
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
