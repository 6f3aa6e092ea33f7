/**
 * The webhook endpoints a development tool (`npm run listen`, `npm run demo`) registers for its
 * loopback receiver, deleted again when the tool ends: normally, on failure, and on Ctrl-C (SIGINT)
 * or SIGTERM. An endpoint left behind points at a port nobody listens on any more, so every later
 * event of the business fails against it (docs/webhooks.md "Watching events locally").
 */

/** One endpoint registered by a tool: the surface's label (`A`, `B`, `C`), its sandbox base and the endpoint id. */
export interface LoopbackEndpoint {
  surface: string;
  base: string;
  id: string;
}

/** The endpoints one tool registered on one service (`api`: its origin; `key`: the sandbox key used). */
export class LoopbackEndpoints {
  private readonly registered: LoopbackEndpoint[] = [];
  private signalsHandled = false;

  constructor(
    private readonly api: string,
    private readonly key: string,
  ) {}

  /** Remembers an endpoint to delete. */
  add(endpoint: LoopbackEndpoint): void {
    this.registered.push(endpoint);
  }

  /**
   * Deletes every endpoint still remembered (`DELETE {base}/webhooks/{id}`) and forgets it, printing
   * one line each: `Surface A: endpoint we_… deleted`, or `NOT deleted (<status>)` with the request
   * to send by hand. `surface` limits it to one surface's endpoints. Never throws.
   */
  async deleteAll(surface?: string): Promise<void> {
    for (const r of this.registered.filter((e) => surface === undefined || e.surface === surface)) {
      this.registered.splice(this.registered.indexOf(r), 1);
      const res = await fetch(`${this.api}${r.base}/webhooks/${r.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${this.key}` } }).catch(() => undefined);
      const ok = res !== undefined && res.status < 300;
      console.log(`Surface ${r.surface}: endpoint ${r.id} ${ok ? 'deleted' : `NOT deleted (${res?.status ?? 'service unreachable'}); delete it with DELETE ${r.base}/webhooks/${r.id}`}`);
    }
  }

  /**
   * On SIGINT or SIGTERM (once): deletes every endpoint, runs `then` (close receivers) and exits
   * with `exitCode` (default 130: ended by the user).
   */
  deleteOnSignals(then: () => void = () => {}, exitCode = 130): void {
    if (this.signalsHandled) return;
    this.signalsHandled = true;
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void this.deleteAll().finally(() => {
        then();
        process.exit(exitCode);
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }
}
