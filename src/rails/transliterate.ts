/** Transliteration of the bank-file text seams (NACHA and SEPA text). Pure. */
import type transliterateText from '@sindresorhus/transliterate';
import { lazyPackage } from '../lazy-package';

const transliterateModule = lazyPackage<{ default: typeof transliterateText }>('@sindresorhus/transliterate');

/** `@sindresorhus/transliterate`, loaded at its first use (docs/operations.md "Idle cost"). */
export function transliterate(text: string, options?: Parameters<typeof transliterateText>[1]): string {
  return transliterateModule().default(text, options);
}
