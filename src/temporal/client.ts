import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { SA } from '../../workflows/search-attributes.contract';
import type { TemporalConnectionOptions } from './connection-options';

/**
 * The Temporal client a process holds (Core.temporal). Only src/temporal calls it: core reaches
 * Temporal through the gateway modules (docs/architecture.md "Temporal gateway").
 */
export type TemporalClient = Client;

/**
 * Connects a Temporal client in `namespace` with `options` (address, and TLS and API key for a
 * secured cluster: src/temporal/connection-options.ts). Retries until the server answers or 30 s
 * pass; a TLS failure (unknown CA, refused client certificate) fails the same way, with its cause.
 */
export async function connectTemporal(options: TemporalConnectionOptions, namespace: string): Promise<TemporalClient> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const connection = await Connection.connect({ ...options, connectTimeout: 2000 });
      return new Client({ connection, namespace });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Temporal is not reachable at ${options.address}: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * The longest a start or Signal from our processes may take, in ms. Without a deadline, a call
 * on a connection whose server side stopped answering (found by `npm run chaos` on the cluster: a
 * worker's calls hung for minutes after a frontend node was killed and restarted) waits forever
 * and holds up its caller; with one it fails and is retried (the relay, the activity's retry).
 */
export const CLIENT_CALL_DEADLINE_MS = 10_000;

/** Runs `fn`'s client calls with {@link CLIENT_CALL_DEADLINE_MS} as their deadline. */
export function withCallDeadline<T>(client: TemporalClient, fn: () => Promise<T>): Promise<T> {
  return client.withDeadline(Date.now() + CLIENT_CALL_DEADLINE_MS, fn);
}

/** Search attribute values keyed by attribute name (all Keyword), as stored in `workflow_starts`. */
export type KeywordAttributes = Partial<Record<keyof typeof SA, string>>;

/** Turns `{PayoutStatus: 'submitted'}` into typed search attribute pairs. */
export function typedAttributes(attrs: KeywordAttributes): SearchAttributePair[] {
  return Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ({ key: SA[k as keyof typeof SA], value: v as string }));
}

/**
 * Starts a workflow, treating "already started" as success: the workflow id is the resource id
 * (docs/architecture.md "Workflow ids and task queues"), so a second start of the same resource is
 * a no-op, also after the first run has closed (`REJECT_DUPLICATE`; Temporal's default would start
 * a second run, which for a payout found already final would open a new 30-day claim wait). Used
 * by the gateways' start functions, so by the workflow-start outbox and its relay. The call has
 * a deadline ({@link CLIENT_CALL_DEADLINE_MS}): a start that times out is left to the relay.
 */
export async function startIdempotently(
  client: TemporalClient,
  opts: { workflowType: string; workflowId: string; taskQueue: string; args: unknown[]; searchAttributes: KeywordAttributes },
): Promise<void> {
  try {
    await withCallDeadline(client, () =>
      client.workflow.start(opts.workflowType, {
        workflowId: opts.workflowId,
        taskQueue: opts.taskQueue,
        args: opts.args,
        typedSearchAttributes: typedAttributes(opts.searchAttributes),
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      }),
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

/** A start recorded in the workflow-start outbox, as a gateway's start function takes it. */
export interface RecordedStart {
  workflowId: string;
  /** The workflow's argument list (JSON, as stored). */
  args: unknown[];
  searchAttributes: KeywordAttributes;
}
