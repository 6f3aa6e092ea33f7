import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SftpError, SftpTransport, type SftpConnectionConfig } from '../../src/rails/sftp/transport';
import { skipWithoutTestSftpServer, startTestSftpServer, type TestSftpServer } from '../../tools/test-bank/sshd';

/** Skipped (with the reason) on a machine without OpenSSH, unless REQUIRE_SSHD=1 (CI): tools/test-bank/sshd.ts. */
const SKIP = skipWithoutTestSftpServer('test/e2e/sftp-transport.test.ts');

/**
 * The bank connection's SFTP transport (src/rails/sftp/transport.ts) against a real OpenSSH
 * server on loopback (tools/test-bank/sshd.ts): `.part` then rename uploads that never send a
 * name twice, listing and size-limited downloads, the pinned host key, authentication, a server
 * restart between calls, a stopped server, and the private key never appearing in an error or a
 * debug line.
 */

let dir: string;
let server: TestSftpServer;
let config: SftpConnectionConfig;
let sftp: SftpTransport;
/** Every SftpError any test saw, checked at the end for the private keys' text. */
const seenErrors: SftpError[] = [];

const inbox = () => join(server.root, 'inbox');
const outbox = () => join(server.root, 'outbox');

async function failure(p: Promise<unknown>): Promise<SftpError> {
  const err = await p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SftpError);
  seenErrors.push(err as SftpError);
  return err as SftpError;
}

/** A raw connection held open (the transport connects per call), and a promise of its close. */
async function openConnection(): Promise<{ client: SftpClient; closed: Promise<void> }> {
  const client = new SftpClient('held');
  const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
  await client.connect({ host: server.host, port: server.port, username: server.username, privateKey: readFileSync(server.privateKeyPath) });
  return { client, closed };
}

function newKey(name: string): string {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path], { stdio: 'ignore' });
  return path;
}

/** The private key's secret text: the body lines between the armour lines. */
function keyBodyLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('-----'));
}

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'sftp-transport-'));
  server = await startTestSftpServer({ dir: join(dir, 'bank') });
  config = {
    host: server.host,
    port: server.port,
    username: server.username,
    privateKeyPath: server.privateKeyPath,
    hostKeySha256: server.hostKeySha256,
    connectTimeoutMs: 5_000,
  };
  sftp = new SftpTransport(config);
});

afterAll(async () => {
  await sftp?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('the test SFTP server', () => {
  it('reports its host key fingerprint exactly as ssh-keygen -lf prints it, and has an inbox and an outbox', () => {
    const printed = execFileSync('ssh-keygen', ['-lf', join(dir, 'bank', 'host_ed25519.pub')]).toString();
    expect(printed.split(' ')[1]).toBe(server.hostKeySha256);
    expect(server.hostKeySha256).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(existsSync(inbox())).toBe(true);
    expect(existsSync(outbox())).toBe(true);
  });
});

describe.skipIf(SKIP)('the test SFTP server', () => {
  it('cutConnections ends every open connection and keeps listening', async () => {
    const held = await openConnection();
    expect((await held.client.list('.')).map((e) => e.name).sort()).toEqual(['inbox', 'outbox']);
    await server.cutConnections();
    await held.closed;
    await expect(held.client.list('.')).rejects.toThrow();
    await expect(sftp.ping()).resolves.toBeUndefined();
  });
});

describe.skipIf(SKIP)('SftpTransport against OpenSSH', () => {
  it('ping connects, checks the pinned host key, authenticates and stats the root', async () => {
    await expect(sftp.ping()).resolves.toBeUndefined();
  });

  it('uploads through <name>.part and a rename: the file lands whole under its name, no .part is left', async () => {
    const content = Buffer.from('<Document>first</Document>\n');
    expect(await sftp.upload('inbox', 'MSG-0001.xml', content)).toBe('uploaded');
    expect(readFileSync(join(inbox(), 'MSG-0001.xml'))).toEqual(content);
    expect(readdirSync(inbox()).filter((f) => f.startsWith('MSG-0001'))).toEqual(['MSG-0001.xml']);
  });

  it('a second upload of the same name uploads nothing, answers exists, and leaves the file unchanged', async () => {
    const before = readFileSync(join(inbox(), 'MSG-0001.xml'));
    // A directory where the .part would go: any attempt to write the file again would fail.
    mkdirSync(join(inbox(), 'MSG-0001.xml.part'));
    expect(await sftp.upload('inbox', 'MSG-0001.xml', Buffer.from('<Document>different</Document>\n'))).toBe('exists');
    expect(await sftp.upload('inbox', 'MSG-0001.xml', before)).toBe('exists');
    rmSync(join(inbox(), 'MSG-0001.xml.part'), { recursive: true });
    expect(readFileSync(join(inbox(), 'MSG-0001.xml'))).toEqual(before);
    expect(readdirSync(inbox()).filter((f) => f.startsWith('MSG-0001'))).toEqual(['MSG-0001.xml']);
  });

  it('writes to <name>.part first: when that name cannot be written, nothing appears under <name>', async () => {
    mkdirSync(join(inbox(), 'MSG-0009.xml.part'));
    const err = await failure(sftp.upload('inbox', 'MSG-0009.xml', Buffer.from('<Document>blocked</Document>\n')));
    expect(err.code).toBe('io');
    expect(existsSync(join(inbox(), 'MSG-0009.xml'))).toBe(false);
    rmSync(join(inbox(), 'MSG-0009.xml.part'), { recursive: true });
  });

  it('overwrites a stale <name>.part left by a crashed upload (a longer one is truncated)', async () => {
    writeFileSync(join(inbox(), 'MSG-0002.xml.part'), 'x'.repeat(10_000));
    const content = Buffer.from('<Document>second</Document>\n');
    expect(await sftp.upload('inbox', 'MSG-0002.xml', content)).toBe('uploaded');
    expect(readFileSync(join(inbox(), 'MSG-0002.xml'))).toEqual(content);
    expect(existsSync(join(inbox(), 'MSG-0002.xml.part'))).toBe(false);
  });

  it('refuses a name that is not a plain file name', async () => {
    await expect(sftp.upload('inbox', '../escape.xml', Buffer.from('x'))).rejects.toThrow(RangeError);
    await expect(sftp.upload('inbox', 'a.xml.part', Buffer.from('x'))).rejects.toThrow(RangeError);
  });

  it('lists regular files only, without .part files or directories, sorted by name, with size and time', async () => {
    writeFileSync(join(outbox(), 'pain002-b.xml'), 'bb');
    writeFileSync(join(outbox(), 'camt054-a.xml'), 'a');
    writeFileSync(join(outbox(), 'pain002-c.xml.part'), 'half a file');
    mkdirSync(join(outbox(), 'archive'));
    utimesSync(join(outbox(), 'camt054-a.xml'), new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:05Z'));
    const files = await sftp.list('outbox');
    expect(files.map((f) => f.name)).toEqual(['camt054-a.xml', 'pain002-b.xml']);
    expect(files.map((f) => f.size)).toEqual([1, 2]);
    expect(files[0]!.modifiedAt.toISOString()).toBe('2026-01-02T03:04:05.000Z');
  });

  it('lists a missing directory as not_found (final)', async () => {
    const err = await failure(sftp.list('no-such-dir'));
    expect(err.code).toBe('not_found');
    expect(err.retryable).toBe(false);
  });

  it('downloads a file up to maxBytes, and refuses a larger one with too_large (final)', async () => {
    const body = Buffer.from('<Document>status report</Document>\n');
    writeFileSync(join(outbox(), 'pain002-d.xml'), body);
    expect(await sftp.download('outbox', 'pain002-d.xml', body.length)).toEqual(body);
    expect(await sftp.download('outbox', 'pain002-d.xml', 1_000_000)).toEqual(body);
    const err = await failure(sftp.download('outbox', 'pain002-d.xml', body.length - 1));
    expect(err.code).toBe('too_large');
    expect(err.retryable).toBe(false);
  });

  it('downloads a file over 1 MiB whole with parallel reads (a bank file of 10,000 entries), still within maxBytes', async () => {
    const body = Buffer.from(Array.from({ length: 120_000 }, (_, i) => `<Ntry>${i}</Ntry>\n`).join(''));
    expect(body.length).toBeGreaterThan(1024 * 1024);
    writeFileSync(join(outbox(), 'camt054-big.xml'), body);
    expect((await sftp.download('outbox', 'camt054-big.xml', body.length)).equals(body)).toBe(true);
    expect((await failure(sftp.download('outbox', 'camt054-big.xml', body.length - 1))).code).toBe('too_large');
  });

  it('downloads a missing file as not_found (final)', async () => {
    const err = await failure(sftp.download('outbox', 'missing.xml', 1000));
    expect(err.code).toBe('not_found');
    expect(err.retryable).toBe(false);
  });

  it('refuses a server whose host key is not the pinned one (host_key_mismatch, final) and uploads nothing', async () => {
    const other = newKey('other_host');
    const otherFingerprint = execFileSync('ssh-keygen', ['-lf', `${other}.pub`]).toString().split(' ')[1]!;
    const pinnedElsewhere = new SftpTransport({ ...config, hostKeySha256: otherFingerprint });
    const err = await failure(pinnedElsewhere.upload('inbox', 'MSG-MITM.xml', Buffer.from('secret payments')));
    expect(err.code).toBe('host_key_mismatch');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(server.hostKeySha256);
    expect(readdirSync(inbox()).filter((f) => f.startsWith('MSG-MITM'))).toEqual([]);
    await expect(pinnedElsewhere.ping()).rejects.toMatchObject({ code: 'host_key_mismatch' });
  });

  it('accepts one of several pinned fingerprints (key rotation), and refuses a malformed pin at construction', async () => {
    const other = newKey('rotated_host');
    const otherFingerprint = execFileSync('ssh-keygen', ['-lf', `${other}.pub`]).toString().split(' ')[1]!;
    await expect(new SftpTransport({ ...config, hostKeySha256: `${otherFingerprint}, ${server.hostKeySha256}` }).ping()).resolves.toBeUndefined();
    expect(() => new SftpTransport({ ...config, hostKeySha256: 'ab:cd:ef' })).toThrow(SftpError);
  });

  it('a client key the server does not know fails auth_failed (final)', async () => {
    const stranger = newKey('stranger_client');
    const err = await failure(new SftpTransport({ ...config, privateKeyPath: stranger }).ping());
    expect(err.code).toBe('auth_failed');
    expect(err.retryable).toBe(false);
  });

  it('a missing private key file fails config (final) and names the path', async () => {
    const err = await failure(new SftpTransport({ ...config, privateKeyPath: join(dir, 'nope') }).ping());
    expect(err.code).toBe('config');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(join(dir, 'nope'));
  });

  it('a key file that is not a usable private key (a public key, a key with a passphrase) fails config (final)', async () => {
    const withPassphrase = join(dir, 'with_passphrase');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-f', withPassphrase], { stdio: 'ignore' });
    for (const privateKeyPath of [`${server.privateKeyPath}.pub`, withPassphrase]) {
      const err = await failure(new SftpTransport({ ...config, privateKeyPath }).ping());
      expect(err.code).toBe('config');
      expect(err.retryable).toBe(false);
    }
  });

  it('works across a server restart between calls (each call connects anew)', async () => {
    expect(await sftp.upload('inbox', 'MSG-0003.xml', Buffer.from('before restart'))).toBe('uploaded');
    await server.restart();
    expect(await sftp.upload('inbox', 'MSG-0004.xml', Buffer.from('after restart'))).toBe('uploaded');
    expect((await sftp.list('inbox')).map((f) => f.name)).toEqual(['MSG-0001.xml', 'MSG-0002.xml', 'MSG-0003.xml', 'MSG-0004.xml']);
  });

  it('a stopped server fails connect_failed, retryable; after the server is back the same transport works', async () => {
    const held = await openConnection();
    await server.stop();
    await held.closed; // stop() ends the open connections too, not only the listener
    try {
      const ping = await failure(sftp.ping());
      expect(ping.code).toBe('connect_failed');
      expect(ping.retryable).toBe(true);
      const upload = await failure(sftp.upload('inbox', 'MSG-0005.xml', Buffer.from('while down')));
      expect(upload.retryable).toBe(true);
    } finally {
      await server.restart();
    }
    expect(await sftp.upload('inbox', 'MSG-0005.xml', Buffer.from('when back'))).toBe('uploaded');
    expect(readFileSync(join(inbox(), 'MSG-0005.xml'), 'utf8')).toBe('when back');
  });

  it('a server that accepts TCP and never speaks fails connect_failed, retryable, within the connect timeout and the call deadline', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const handshake = await failure(new SftpTransport({ ...config, port, connectTimeoutMs: 300 }).ping());
      expect(handshake.code).toBe('connect_failed');
      expect(handshake.retryable).toBe(true);
      const deadline = await failure(new SftpTransport({ ...config, port, operationTimeoutMs: 300 }).ping());
      expect(deadline.code).toBe('io');
      expect(deadline.retryable).toBe(true);
    } finally {
      silent.close();
    }
  });

  it('never puts the private key in an error or a debug line', async () => {
    const lines: string[] = [];
    const logged = new SftpTransport({ ...config, debug: (l) => lines.push(l) });
    await logged.upload('inbox', 'MSG-0006.xml', Buffer.from('logged'));
    seenErrors.push(await failure(new SftpTransport({ ...config, hostKeySha256: `SHA256:${'A'.repeat(43)}`, debug: (l) => lines.push(l) }).ping()));
    expect(lines.length).toBeGreaterThan(10);
    const secrets = [...keyBodyLines(server.privateKeyPath), ...keyBodyLines(join(dir, 'stranger_client'))];
    expect(secrets.length).toBeGreaterThan(2);
    expect(seenErrors.length).toBeGreaterThanOrEqual(8);
    const texts = [...lines, ...seenErrors.flatMap((e) => [e.message, String(e.stack), JSON.stringify(e)])];
    for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
