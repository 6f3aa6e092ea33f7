/** Contract of the bank file workflows (docs/rails.md "Files"). */

export const RAIL_WINDOW_WORKFLOW_TYPE = 'railWindowWorkflow';
export const RAIL_INBOX_WORKFLOW_TYPE = 'railInboxWorkflow';

export const railWindowWorkflowId = (rail: string, windowStartMs: number) => `railwindow:${rail}:${windowStartMs}`;
export const railInboxWorkflowId = (rail: string) => `railinbox:${rail}`;

export interface RailWindowInput {
  rail: string;
  /** Epoch ms; the window key. */
  windowStartMs: number;
  closesAtMs: number;
}

export interface RailInboxInput {
  rail: string;
  pollIntervalMs: number;
}

export const RAIL_INBOX_POLLS_PER_RUN = 200;

/** fileId null: nothing was queued. */
export interface RailCollectResult {
  fileId: string | null;
  transactions: number;
}

/** Each is idempotent. */
export interface RailFileActivities {
  /** One transaction: writes the pain.001, validates it against the XSD, records it with its instructions. */
  railFileCollect(input: { rail: string; windowKey: string }): Promise<RailCollectResult>;
  /** Uploads `<name>.part`, then renames; an existing name is not sent again. */
  railFileUpload(input: { fileId: string }): Promise<{ result: 'uploaded' | 'exists' | 'already_sent' }>;
  /** Takes each new file once (by name and sha256), quarantines one that does not parse; `more`: poll again at once. */
  railInboxPoll(input: { rail: string }): Promise<{ files: number; events: number; quarantined: number; more?: boolean }>;
}
