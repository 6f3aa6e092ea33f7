import { installStripeMock, resolveStripeMock, STRIPE_MOCK_VERSION } from './test-card-processor/stripe-mock';

/**
 * `npx tsx tools/stripe-mock-bin.ts install | path` (docs/getting-paid.md "Test card processor"):
 * `install` builds stripe-mock (`github.com/stripe/stripe-mock@v0.203.0`, through the Go module proxy)
 * into .tools/stripe-mock/ with `GOBIN=... go install`, as tools/temporal-bin.ts installs the Temporal
 * binaries; `path` prints the binary the test card processor starts (STRIPE_MOCK, .tools/stripe-mock,
 * PATH) and fails, naming `install`, when there is none.
 */
const command = process.argv[2];
try {
  if (command === 'install') {
    console.log(`stripe-mock ${STRIPE_MOCK_VERSION}: ${installStripeMock()}`);
  } else if (command === 'path') {
    console.log(resolveStripeMock());
  } else {
    console.error('usage: npx tsx tools/stripe-mock-bin.ts install | path');
    process.exitCode = 2;
  }
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
