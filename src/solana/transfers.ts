/** Building the sweep's signed USDC transfer (docs/getting-paid.md "Crypto deposits"); src/core/funding/crypto-sweeps.ts decides and records it. */
import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';

/** A USDC `TransferChecked` of `amount` micro-USDC (6 decimals) from `source` to `destination`, signed by the fee payer and the source's authority. */
export interface TokenTransfer {
  feePayer: TransactionSigner;
  authority: TransactionSigner;
  source: string;
  destination: string;
  mint: string;
  amount: bigint;
  blockhash: string;
  lastValidBlockHeight: bigint;
}

/** The signed transaction: its signature and its base64 wire form (sent again as is until it expires). */
export async function signedTokenTransfer(t: TokenTransfer): Promise<{ signature: string; wire: string }> {
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(t.feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: t.blockhash as Blockhash, lastValidBlockHeight: t.lastValidBlockHeight }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [getTransferCheckedInstruction({ source: address(t.source), mint: address(t.mint), destination: address(t.destination), authority: t.authority, amount: t.amount, decimals: 6 })],
        m,
      ),
    (m) => signTransactionMessageWithSigners(m),
  );
  return { signature: getSignatureFromTransaction(tx), wire: getBase64EncodedWireTransaction(tx) };
}
