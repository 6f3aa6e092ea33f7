/**
 * The SFTP transport of a bank connection (ssh2-sftp-client), one SSH connection per call.
 * - The host key is pinned (SHA-256 fingerprint, checked before authentication); another key is
 *   refused `host_key_mismatch` and nothing is sent.
 * - The private key is read at each connect, never logged: library messages are redacted.
 * - Uploads write `<name>.part` and rename it, so the bank never reads half a file; an existing
 *   `<name>` is not uploaded again (a retried upload sends the file at most once).
 * - Every call has a deadline (`operationTimeoutMs`): past it the call fails `io`, retryable.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type SftpClient from 'ssh2-sftp-client';
import { connectError, operationError, SftpError } from './errors';

export { SftpError, type SftpErrorCode } from './errors';

export interface SftpConnectionConfig {
  host: string;
  port: number;
  username: string;
  /** OpenSSH or PEM, without passphrase. */
  privateKeyPath: string;
  /** `SHA256:<base64 without padding>` as `ssh-keygen -lf` prints it; comma-separated to rotate. */
  hostKeySha256: string;
  /** Default 10000 (TCP connect, key exchange, authentication). */
  connectTimeoutMs?: number;
  /** The whole call, connect included; default 60000. */
  operationTimeoutMs?: number;
  debug?: (line: string) => void;
}

export interface RemoteFile {
  name: string;
  size: number;
  modifiedAt: Date;
}

const PART_SUFFIX = '.part';
/** Files larger than this (bytes) are downloaded with parallel read requests (ssh2's fastGet through a temporary file). */
const PARALLEL_DOWNLOAD_BYTES = 1024 * 1024;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/** The fingerprint of a raw SSH public key blob, as `ssh-keygen -lf` prints it. */
export function sshFingerprintSha256(rawKey: Buffer): string {
  return `SHA256:${createHash('sha256').update(rawKey).digest('base64').replace(/=+$/, '')}`;
}

export class SftpTransport {
  private readonly pins: string[];
  private readonly open = new Set<SftpClient>();
  private readonly server: string;

  /** Throws {@link SftpError} `config` for a malformed `hostKeySha256`. */
  constructor(private readonly config: SftpConnectionConfig) {
    this.pins = config.hostKeySha256.split(',').map((s) => s.trim()).filter(Boolean);
    if (this.pins.length === 0 || !this.pins.every((p) => FINGERPRINT.test(p))) {
      throw new SftpError('hostKeySha256 must be a fingerprint as ssh-keygen -lf prints it (SHA256:<43 base64 characters>)', 'config', false);
    }
    this.server = `${config.username}@${config.host}:${config.port}`;
  }

  /**
   * Uploads `content` as `<dir>/<name>` via `<name>.part` and a rename; `'exists'` when `<name>` is
   * already there (a name is the file's identity). Throws {@link SftpError}; RangeError for a bad name.
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
        if (await regularFileExists(c, target)) {
          await c.delete(part, true).catch(() => undefined);
          return 'exists';
        }
        throw err;
      }
      return 'uploaded';
    });
  }

  /** The regular files in `dir` (no `*.part`), by name. Throws {@link SftpError} (`not_found`). */
  async list(dir: string): Promise<RemoteFile[]> {
    return this.call(`list ${dir}`, async (c) => {
      const entries = await c.list(dir);
      return entries
        .filter((e) => e.type === '-' && !e.name.endsWith(PART_SUFFIX))
        .map((e) => ({ name: e.name, size: e.size, modifiedAt: new Date(e.modifyTime) }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }

  /** `<dir>/<name>`, refused `too_large` (final) past `maxBytes`, even when it grows while read. Throws {@link SftpError}. */
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

  /**
   * Waits up to `waitMs` for `<dir>/<name>` on one connection, looking every `pollMs`: its content,
   * or null when it did not appear in time. Throws {@link SftpError} (`too_large` past `maxBytes`).
   */
  async awaitFile(dir: string, name: string, maxBytes: number, waitMs: number, pollMs: number): Promise<Buffer | null> {
    checkName(name);
    const path = posix.join(dir, name);
    return this.call(`await ${path}`, async (c) => {
      const until = Date.now() + waitMs;
      for (;;) {
        if (await regularFileExists(c, path)) {
          const size = (await c.stat(path)).size;
          if (size > maxBytes) throw new SftpError(`await ${path} on ${this.server}: ${size} bytes, over the limit of ${maxBytes}`, 'too_large', false);
          return (await c.get(path)) as Buffer;
        }
        if (Date.now() + pollMs > until) return null;
        await new Promise((r) => setTimeout(r, pollMs));
      }
    });
  }

  async ping(): Promise<void> {
    await this.call('ping', async (c) => {
      await c.stat('.');
    });
  }

  /** Ends the connections of running calls (they fail `io`); later calls connect again. */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((c) => shutdown(c)));
  }

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
    // Loaded at the first call, so a process without a bank connection never loads ssh2 (docs/operations.md "Idle cost").
    const { default: Client } = await import('ssh2-sftp-client');
    const client = new Client(`sftp-${this.config.host}`);
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

async function regularFileExists(c: SftpClient, path: string): Promise<boolean> {
  const type = await c.exists(path);
  if (type === false) return false;
  if (type === '-') return true;
  throw new SftpError(`${path} exists and is not a regular file (type ${type})`, 'io', false);
}

async function shutdown(c: SftpClient): Promise<void> {
  const ssh = (c as unknown as { client?: { destroy(): void } }).client;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([c.end().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
  clearTimeout(timer);
  // Also ends a connection still being opened (end() only ends an open SFTP session); a no-op once closed.
  ssh?.destroy();
}

/** Removes the private key's text (whole, and each key-material line) from a message. */
function redactor(key: Buffer): (s: string) => string {
  const text = key.toString('utf8');
  const parts = [text.trim(), ...text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length >= 16 && !l.startsWith('-----'))];
  return (s: string) => {
    let out = s;
    for (const p of parts) if (p && out.includes(p)) out = out.split(p).join('[redacted]');
    return out;
  };
}

/** `working` or `failing` (connect, authenticate, stat `.`); never throws. */
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
