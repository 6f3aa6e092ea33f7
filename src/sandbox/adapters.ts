/** The sandbox environment as adapters the core is handed at composition (docs/sandbox.md "Adapters"; rule `core-not-sandbox`). */
import type { SandboxAdapters } from '../core/context';
import { midRate } from './fx';
import { sandboxNotificationProvider } from './notifications';
import { sandboxRailAdapter } from './rail-adapter';
import { sandboxClaimWindowMs } from './rails';

export function sandboxAdapters(): SandboxAdapters {
  return {
    midRate,
    claimWindowMs: sandboxClaimWindowMs,
    railAdapter: (config) => sandboxRailAdapter({ sandboxArrival: config.SANDBOX_ARRIVAL }),
    notificationProvider: sandboxNotificationProvider,
  };
}
