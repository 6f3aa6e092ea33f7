/**
 * The one error of the SFTP transport (src/rails/sftp/transport.ts) and how the SSH and SFTP
 * library's failures map onto it: a `code` for machines, `retryable` for the caller's retry policy
 * (a rail activity retries a retryable failure and stops on a final one).
 */

/**
 * Why an SFTP call failed:
 * - `host_key_mismatch`: the server's host key is not the pinned one (final: an operator must
 *   check the bank's key and change the pin);
 * - `auth_failed`: the server refused our key (final);
 * - `config`: the configuration cannot work (the private key file is missing or unreadable or
 *   not a private key, a fingerprint is malformed) (final);
 * - `connect_failed`: no SSH session could be opened (refused, reset, timed out) (retryable);
 * - `io`: the session broke or an operation failed during a call (retryable), or the server
 *   refused the operation for lack of permission (final);
 * - `not_found`: the file or directory does not exist (final);
 * - `too_large`: a download over its byte limit (final).
 */
export type SftpErrorCode = 'host_key_mismatch' | 'auth_failed' | 'config' | 'connect_failed' | 'io' | 'not_found' | 'too_large';

/**
 * A failed SFTP call. The message names the operation, the server (`user@host:port`) and the
 * path; it never holds the private key (messages coming from the SSH library are passed through
 * the transport's redaction first).
 */
export class SftpError extends Error {
  constructor(
    message: string,
    /** Machine-readable reason (see {@link SftpErrorCode}). */
    readonly code: SftpErrorCode,
    /** Whether calling again later may succeed. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SftpError';
  }
}

/** What the library's error carries that the mapping reads: its message and code. */
interface LibraryError {
  message: string;
  /** ssh2-sftp-client's code ('ENOENT', 'ECONNREFUSED', 'ERR_GENERIC_CLIENT') or an SFTP status number. */
  code?: string | number;
}

function asLibraryError(err: unknown): LibraryError {
  if (err && typeof err === 'object' && 'message' in err) {
    const e = err as { message: unknown; code?: unknown };
    const code = typeof e.code === 'string' || typeof e.code === 'number' ? e.code : undefined;
    return { message: String(e.message), code };
  }
  return { message: String(err) };
}

/**
 * Maps a failure while opening the session (TCP connect, key exchange, host key check,
 * authentication, opening the sftp subsystem). `hostKeyRefused` is set by the transport's host key
 * verifier, so the mismatch does not depend on the library's wording.
 */
export function connectError(err: unknown, where: string, hostKeyRefused: string | null, redact: (s: string) => string): SftpError {
  if (err instanceof SftpError) return err;
  if (hostKeyRefused !== null) {
    return new SftpError(`${where}: host key refused: the server offered ${hostKeyRefused}, which is not the pinned host key`, 'host_key_mismatch', false);
  }
  const e = asLibraryError(err);
  const text = redact(e.message);
  if (/authentication methods failed/i.test(e.message)) {
    return new SftpError(`${where}: authentication failed (the server refused the client key): ${text}`, 'auth_failed', false);
  }
  if (/privateKey|private key/i.test(e.message)) {
    return new SftpError(`${where}: the private key cannot be used: ${text}`, 'config', false);
  }
  return new SftpError(`${where}: could not open an SFTP session: ${text}${e.code !== undefined ? ` (${e.code})` : ''}`, 'connect_failed', true);
}

/** Maps a failure of an operation on an open session. */
export function operationError(err: unknown, where: string, redact: (s: string) => string): SftpError {
  if (err instanceof SftpError) return err;
  const e = asLibraryError(err);
  const text = `${where}: ${redact(e.message)}${e.code !== undefined ? ` (${e.code})` : ''}`;
  // SFTP status 2 is SSH_FX_NO_SUCH_FILE, 3 SSH_FX_PERMISSION_DENIED (draft-ietf-secsh-filexfer-02).
  if (e.code === 'ENOENT' || e.code === 2) return new SftpError(text, 'not_found', false);
  if (e.code === 'EACCES' || e.code === 3) return new SftpError(text, 'io', false);
  return new SftpError(text, 'io', true);
}
