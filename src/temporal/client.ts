import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { SA } from '../../workflows/search-attributes.contract';
import type { TemporalConnectionOptions } from './connection-options';

/** The Temporal client (Core.temporal); core reaches it only through src/temporal's gateways. */
export type TemporalClient = Client;

/** Connects a Temporal client (src/temporal/connection-options.ts); retries until the server answers or 30 s pass. */
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

/** The deadline of a start or Signal, in ms: a call to a server that stopped answering fails and is retried. */
export const CLIENT_CALL_DEADLINE_MS = 10_000;

/** Runs `fn`'s client calls with {@link CLIENT_CALL_DEADLINE_MS} as their deadline. */
export function withCallDeadline<T>(client: TemporalClient, fn: () => Promise<T>): Promise<T> {
  return client.withDeadline(Date.now() + CLIENT_CALL_DEADLINE_MS, fn);
}

/** Keyword search attribute values by name, as stored in `workflow_starts`. */
export type KeywordAttributes = Partial<Record<keyof typeof SA, string>>;

/** Keyword attributes as typed search attribute pairs. */
export function typedAttributes(attrs: KeywordAttributes): SearchAttributePair[] {
  return Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ({ key: SA[k as keyof typeof SA], value: v as string }));
}

/** Starts a workflow; "already started" is success, also after the run closed (`REJECT_DUPLICATE`). Has a deadline. */
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

export interface RecordedStart {
  workflowId: string;
  /** JSON, as stored. */
  args: unknown[];
  searchAttributes: KeywordAttributes;
}
