/**
 * Why an SFTP call failed. Final: `host_key_mismatch` (an operator must check the pin),
 * `auth_failed`, `config`, `not_found`, `too_large`, `io` for a permission refusal. Retryable:
 * `connect_failed`, `io` otherwise.
 */
export type SftpErrorCode = 'host_key_mismatch' | 'auth_failed' | 'config' | 'connect_failed' | 'io' | 'not_found' | 'too_large';

/** A failed SFTP call; the message names operation, server and path, never the private key (redacted). */
export class SftpError extends Error {
  constructor(
    message: string,
    readonly code: SftpErrorCode,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SftpError';
  }
}

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

/** Maps a failure while opening the session; `hostKeyRefused` comes from the transport's verifier, not the library's wording. */
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

export function operationError(err: unknown, where: string, redact: (s: string) => string): SftpError {
  if (err instanceof SftpError) return err;
  const e = asLibraryError(err);
  const text = `${where}: ${redact(e.message)}${e.code !== undefined ? ` (${e.code})` : ''}`;
  // SFTP status 2 is SSH_FX_NO_SUCH_FILE, 3 SSH_FX_PERMISSION_DENIED (draft-ietf-secsh-filexfer-02).
  if (e.code === 'ENOENT' || e.code === 2) return new SftpError(text, 'not_found', false);
  if (e.code === 'EACCES' || e.code === 3) return new SftpError(text, 'io', false);
  return new SftpError(text, 'io', true);
}
