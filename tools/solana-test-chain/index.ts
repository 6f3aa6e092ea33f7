/** The Solana test chain (docs/getting-paid.md "Test chain"): litesvm with commitment levels, its JSON-RPC, a payer. */
export { ChainRpcError, type Commitment, TestChain, type TestChainOptions } from './chain';
export { type ChainRpcServer, handleRpc, startChainRpc } from './server';
export { createPayerWithMint, fund, MEMO_PROGRAM, sendInstructions, sendToken, type TestPayer } from './wallet';
