/**
 * The SFTP transport of a bank connection (host-to-host file exchange): upload a file into the
 * bank's inbox without the bank ever seeing half of it, list and download the bank's answers, and
 * check that the connection works. Built on ssh2-sftp-client (and so ssh2).
 *
 * - One SSH connection per call. Each call connects, does its few SFTP operations and
 *   disconnects: a bank exchange is a handful of calls per cut-off window or poll, so a handshake
 *   per call costs nothing that matters, and there is no long-lived connection to go stale: a call
 *   after the server restarted (or after a cut connection) simply connects again.
 * - The host key is pinned: the server's key must have the configured SHA-256 fingerprint (as
 *   `ssh-keygen -lf` prints it), checked in ssh2's `hostVerifier` before authentication. Any other
 *   key is refused (`host_key_mismatch`, final) and nothing is sent.
 * - The private key is read from its path at each connect and handed only to ssh2. It is never
 *   logged and never put in an error: every message from the library (errors and the optional
 *   debug lines) goes through a redaction that removes the key's text.
 * - Uploads write `<name>.part` and rename it to `<name>` (an SFTP rename never replaces an
 *   existing file), so the bank never reads half a file; a name that already exists is not uploaded
 *   again, which makes a retried upload (after a crash anywhere in it) send the file at most once.
 * - Every call has a deadline (`operationTimeoutMs`); past it the connection is destroyed and the
 *   call fails `io`, retryable. Keepalives (every 5 s, 3 missed) notice a server that went away.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import { connectError, operationError, SftpError } from './errors';

export { SftpError, type SftpErrorCode } from './errors';

/** Where and as whom to connect. */
export interface SftpConnectionConfig {
  host: string;
  port: number;
  username: string;
  /** Path of the client's private key (OpenSSH or PEM, without passphrase); read at each connect, never logged. */
  privateKeyPath: string;
  /**
   * The pinned host key, as `ssh-keygen -lf <key>.pub` prints it: `SHA256:<base64 without padding>`.
   * Several fingerprints separated by commas are accepted (to rotate the bank's key without a gap).
   */
  hostKeySha256: string;
  /** Milliseconds to open the session (TCP connect, key exchange, authentication); default 10000. */
  connectTimeoutMs?: number;
  /** Milliseconds one call may take in all (connect included); default 60000. */
  operationTimeoutMs?: number;
  /** Receives the SSH library's debug lines (redacted), for troubleshooting; off by default. */
  debug?: (line: string) => void;
}

/** A regular file in a remote directory. */
export interface RemoteFile {
  name: string;
  /** Bytes. */
  size: number;
  /** The server's modification time (SFTP carries whole seconds). */
  modifiedAt: Date;
}

const PART_SUFFIX = '.part';
/** Files larger than this (bytes) are downloaded with parallel read requests (ssh2's fastGet through a temporary file). */
const PARALLEL_DOWNLOAD_BYTES = 1024 * 1024;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/**
 * The SHA-256 fingerprint of a raw SSH public key blob (the key as sent in the key exchange), in
 * the format `ssh-keygen -lf` prints: `SHA256:` and the base64 of the digest without padding.
 */
export function sshFingerprintSha256(rawKey: Buffer): string {
  return `SHA256:${createHash('sha256').update(rawKey).digest('base64').replace(/=+$/, '')}`;
}

/** The SFTP transport of one bank connection (see the module comment). */
export class SftpTransport {
  private readonly pins: string[];
  private readonly open = new Set<SftpClient>();
  private readonly server: string;

  /** Throws {@link SftpError} `config` when `hostKeySha256` is not one or more `SHA256:<43 base64 chars>`. */
  constructor(private readonly config: SftpConnectionConfig) {
    this.pins = config.hostKeySha256.split(',').map((s) => s.trim()).filter(Boolean);
    if (this.pins.length === 0 || !this.pins.every((p) => FINGERPRINT.test(p))) {
      throw new SftpError('hostKeySha256 must be a fingerprint as ssh-keygen -lf prints it (SHA256:<43 base64 characters>)', 'config', false);
    }
    this.server = `${config.username}@${config.host}:${config.port}`;
  }

  /**
   * Uploads `content` as `<dir>/<name>`: writes `<name>.part` (replacing a stale one left by a
   * crashed upload), checks its size, then renames it to `<name>`. When `<name>` already exists nothing is uploaded
   * and the answer is `'exists'` (the file's name is its identity: a retried upload after a crash,
   * even one between the rename and the answer, leaves exactly one `<name>`). `name` is a plain
   * file name (no `/`, not ending in `.part`). Throws {@link SftpError}; RangeError for a bad name.
   */
  async upload(dir: string, name: string, content: Buffer): Promise<'uploaded' | 'exists'> {
    checkName(name);
    const target = posix.join(dir, name);
    const part = `${target}${PART_SUFFIX}`;
    return this.call(`upload ${target}`, async (c) => {
      if (await regularFileExists(c, target)) return 'exists';
      await c.put(content, part, { writeStreamOptions: { flags: 'w', mode: 0o644 } });
      // Only a complete .part becomes <name>: a short write (a full disk the server did not report) stops here.
      const written = (await c.stat(part)).size;
      if (written !== content.length) {
        throw new SftpError(`upload ${target} on ${this.server}: ${part} has ${written} of ${content.length} bytes`, 'io', true);
      }
      try {
        await c.rename(part, target);
      } catch (err) {
        // The rename fails when the target appeared meanwhile (another uploader of the same name).
        if (await regularFileExists(c, target)) {
          await c.delete(part, true).catch(() => undefined);
          return 'exists';
        }
        throw err;
      }
      return 'uploaded';
    });
  }

  /**
   * The regular files in `dir` (no directories, links or `*.part` files being uploaded), sorted
   * by name (code unit order). Throws {@link SftpError} (`not_found` when `dir` does not exist).
   */
  async list(dir: string): Promise<RemoteFile[]> {
    return this.call(`list ${dir}`, async (c) => {
      const entries = await c.list(dir);
      return entries
        .filter((e) => e.type === '-' && !e.name.endsWith(PART_SUFFIX))
        .map((e) => ({ name: e.name, size: e.size, modifiedAt: new Date(e.modifyTime) }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }

  /**
   * The content of `<dir>/<name>`, at most `maxBytes` bytes: a larger file is refused with
   * {@link SftpError} `too_large` (not retryable) without reading it (and a file that grows past
   * the limit while it is read is refused too). Throws {@link SftpError} (`not_found` when the
   * file does not exist or is not a regular file).
   */
  async download(dir: string, name: string, maxBytes: number): Promise<Buffer> {
    checkName(name);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError('maxBytes must be a non-negative integer');
    const path = posix.join(dir, name);
    return this.call(`download ${path}`, async (c) => {
      const st = await c.stat(path);
      if (!st.isFile) throw new SftpError(`download ${path} on ${this.server}: not a regular file`, 'not_found', false);
      const tooLarge = (size: number) =>
        new SftpError(`download ${path} on ${this.server}: ${size} bytes or more, over the limit of ${maxBytes}`, 'too_large', false);
      if (st.size > maxBytes) throw tooLarge(st.size);
      if (st.size > PARALLEL_DOWNLOAD_BYTES) {
        // A large file (a bank's 10,000-entry notification) is read with many read requests in
        // flight (one at a time, a 16 MiB file took about 10 s on loopback); exactly the size stat gave.
        const tmp = await mkdtemp(join(tmpdir(), 'sftp-download-'));
        try {
          const local = join(tmp, 'file');
          await c.fastGet(path, local, { concurrency: 32, chunkSize: 32 * 1024 });
          const data = await readFile(local);
          if (data.length > maxBytes) throw tooLarge(data.length);
          return data;
        } finally {
          await rm(tmp, { recursive: true, force: true });
        }
      }
      // Reads at most maxBytes + 1 bytes (`end` is inclusive): one byte more tells the file grew.
      const chunks: Buffer[] = [];
      let total = 0;
      await new Promise<void>((resolve, reject) => {
        const stream = c.createReadStream(path, { start: 0, end: maxBytes });
        stream.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          total += chunk.length;
        });
        stream.once('error', reject);
        stream.once('end', () => resolve());
      });
      if (total > maxBytes) throw tooLarge(total);
      return Buffer.concat(chunks, total);
    });
  }

  /** Connects (host key, authentication, sftp subsystem) and stats `.`; resolves when the connection works. Throws {@link SftpError}. */
  async ping(): Promise<void> {
    await this.call('ping', async (c) => {
      await c.stat('.');
    });
  }

  /**
   * Ends the connections of calls still running (they fail `io`, retryable). The transport stays
   * usable: a later call opens a new connection, as every call does.
   */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((c) => shutdown(c)));
  }

  /** Opens a connection, runs `body` on it within the call's deadline, and always disconnects. */
  private async call<T>(what: string, body: (c: SftpClient) => Promise<T>): Promise<T> {
    const where = `${what} on ${this.server}`;
    let key: Buffer;
    try {
      key = await readFile(this.config.privateKeyPath);
    } catch (err) {
      const reason = err && typeof err === 'object' && 'code' in err ? String(err.code) : 'unreadable';
      throw new SftpError(`${where}: cannot read the private key file ${this.config.privateKeyPath} (${reason})`, 'config', false);
    }
    const redact = redactor(key);
    const debug = this.config.debug;
    const client = new SftpClient(`sftp-${this.config.host}`);
    this.open.add(client);
    let hostKeyRefused: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      const ms = this.config.operationTimeoutMs ?? 60_000;
      timer = setTimeout(() => {
        reject(new SftpError(`${where}: no answer within ${ms} ms`, 'io', true));
        void shutdown(client);
      }, ms);
    });
    deadline.catch(() => undefined);
    try {
      try {
        await Promise.race([
          client.connect({
            host: this.config.host,
            port: this.config.port,
            username: this.config.username,
            privateKey: key,
            readyTimeout: this.config.connectTimeoutMs ?? 10_000,
            keepaliveInterval: 5_000,
            keepaliveCountMax: 3,
            hostVerifier: (raw: Buffer) => {
              const offered = sshFingerprintSha256(raw);
              if (this.pins.includes(offered)) return true;
              hostKeyRefused = offered;
              return false;
            },
            ...(debug ? { debug: (line: string) => debug(redact(line)) } : {}),
          }),
          deadline,
        ]);
      } catch (err) {
        throw connectError(err, where, hostKeyRefused, redact);
      }
      try {
        return await Promise.race([body(client), deadline]);
      } catch (err) {
        throw operationError(err, where, redact);
      }
    } finally {
      clearTimeout(timer);
      await shutdown(client);
      this.open.delete(client);
    }
  }
}

function checkName(name: string): void {
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\0') || name.endsWith(PART_SUFFIX)) {
    throw new RangeError(`not a plain file name: ${JSON.stringify(name)}`);
  }
}

/** True when `path` is a regular file; false when nothing is there; an error for anything else at that path. */
async function regularFileExists(c: SftpClient, path: string): Promise<boolean> {
  const type = await c.exists(path);
  if (type === false) return false;
  if (type === '-') return true;
  throw new SftpError(`${path} exists and is not a regular file (type ${type})`, 'io', false);
}

/** Ends the connection politely (waiting at most 2 s for the server), then destroys the socket. */
async function shutdown(c: SftpClient): Promise<void> {
  const ssh = (c as unknown as { client?: { destroy(): void } }).client;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([c.end().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
  clearTimeout(timer);
  // Also ends a connection still being opened (end() only ends an open SFTP session); a no-op once closed.
  ssh?.destroy();
}

/**
 * Removes the private key's text from a message: the whole file, and each of its lines long
 * enough to be key material (a PEM or OpenSSH body line), wherever they appear.
 */
function redactor(key: Buffer): (s: string) => string {
  const text = key.toString('utf8');
  const parts = [text.trim(), ...text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length >= 16 && !l.startsWith('-----'))];
  return (s: string) => {
    let out = s;
    for (const p of parts) if (p && out.includes(p)) out = out.split(p).join('[redacted]');
    return out;
  };
}

/**
 * Whether the bank connection `config` works now (connect, authenticate, stat `.`): `working` or
 * `failing`; never throws. The health check of every SFTP file rail (src/rails/adapter.ts `health`).
 */
export async function sftpHealth(config: SftpConnectionConfig): Promise<'working' | 'failing'> {
  const sftp = new SftpTransport(config);
  try {
    await sftp.ping();
    return 'working';
  } catch {
    return 'failing';
  } finally {
    await sftp.close().catch(() => undefined);
  }
}
