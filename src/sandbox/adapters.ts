/**
 * The sandbox environment as adapters the core is handed at composition (docs/sandbox.md
 * "Adapters"): the fixed rate table as a rate source, the claim-window policy with its magic
 * reference, the simulated rail and the recording notification provider. The core never imports
 * src/sandbox (.dependency-cruiser.cjs `core-not-sandbox`).
 */
import type { SandboxAdapters } from '../core/context';
import { midRate } from './fx';
import { sandboxNotificationProvider } from './notifications';
import { sandboxRailAdapter } from './rail-adapter';
import { sandboxClaimWindowMs } from './rails';

/** The adapters of the sandbox environment; one object per process, stateless. */
export function sandboxAdapters(): SandboxAdapters {
  return {
    midRate,
    claimWindowMs: sandboxClaimWindowMs,
    railAdapter: (config) => sandboxRailAdapter({ sandboxArrival: config.SANDBOX_ARRIVAL }),
    notificationProvider: sandboxNotificationProvider,
  };
}
