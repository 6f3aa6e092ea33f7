/**
 * Contract of the bank file workflows (workflows/rail-files.ts; docs/rails.md "Files"): their
 * type names, inputs and the activities they proxy (activities/rails.ts implements them).
 */

/** Workflow type of one collection window of a file rail. */
export const RAIL_WINDOW_WORKFLOW_TYPE = 'railWindowWorkflow';
/** Workflow type of a file rail's inbox poller. */
export const RAIL_INBOX_WORKFLOW_TYPE = 'railInboxWorkflow';

/** Workflow id of the window `windowKey` of `rail`: one file (or none) per window. */
export const railWindowWorkflowId = (rail: string, windowStartMs: number) => `railwindow:${rail}:${windowStartMs}`;
/** Workflow id of the inbox poller of `rail` (one per rail and namespace). */
export const railInboxWorkflowId = (rail: string) => `railinbox:${rail}`;

/** Argument of railWindowWorkflow. */
export interface RailWindowInput {
  rail: string;
  /** Window start, epoch ms (the window key). */
  windowStartMs: number;
  /** When the window closes and its file is written, epoch ms. */
  closesAtMs: number;
}

/** Argument of railInboxWorkflow. */
export interface RailInboxInput {
  rail: string;
  /** Interval between listings, in ms. */
  pollIntervalMs: number;
}

/** Polls per run of railInboxWorkflow before it continues as new (keeps its history short). */
export const RAIL_INBOX_POLLS_PER_RUN = 200;

/** What one collection produced: the file written (null when nothing was queued). */
export interface RailCollectResult {
  fileId: string | null;
  transactions: number;
}

/** The activities of the file workflows. Each is idempotent. */
export interface RailFileActivities {
  /**
   * Collects the rail's queued instructions (at most one file's worth) into a new outbound file:
   * writes the pain.001, validates it against the official XSD and records it with its
   * instructions, in one transaction. Null fileId: nothing was queued.
   */
  railFileCollect(input: { rail: string; windowKey: string }): Promise<RailCollectResult>;
  /** Uploads the file (`<name>.part`, then rename; an existing name is not sent again) and records it sent. */
  railFileUpload(input: { fileId: string }): Promise<{ result: 'uploaded' | 'exists' | 'already_sent' }>;
  /**
   * Lists the bank's outbox and takes each new file once (by name and sha256): parses it, records
   * its statuses (matched or unmatched), credits deposits, signals the payouts; quarantines a file
   * that does not parse. Takes a bounded number of files per call; `more`: files were left, poll again at once.
   */
  railInboxPoll(input: { rail: string }): Promise<{ files: number; events: number; quarantined: number; more?: boolean }>;
}
