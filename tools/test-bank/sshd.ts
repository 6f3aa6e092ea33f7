/**
 * A real OpenSSH SFTP server on loopback for the test bank: Debian's `/usr/sbin/sshd` (package
 * `openssh-server`), started as a process of the current OS user with its own host key, one client
 * key in its authorized_keys, and an `internal-sftp` that starts every session in `root` (so the
 * client's relative paths `inbox/...` and `outbox/...` land there).
 *
 * - Run as an ordinary user, sshd needs no privilege at all: it serves only that user, with
 *   privilege separation off (OpenSSH does that by itself when it is not root).
 * - Run as root (CI may), it is Debian's usual sshd on a high port: it needs the `sshd` user the
 *   package creates and its privilege-separation directory `/run/sshd`, which is created here when
 *   missing (a container has no systemd to create it).
 *
 * The state directory holds everything: `host_ed25519` (the host key, kept across restarts),
 * `client_ed25519` (the client's private key), `authorized_keys`, `sshd_config`, `sshd.pid`,
 * `sshd.log` (sshd's own log, `-e` to that file) and `root/` with `root/inbox` (the service
 * uploads there) and `root/outbox` (the bank writes its answers there). Keys already present in the
 * directory are reused, so a second start on the same directory keeps the host key pinned.
 *
 * With `UsePAM no`, sshd refuses even a key login to an account it sees as locked: as root it
 * reads /etc/shadow, where a password starting with `!` locks the account (`*`, Debian's default
 * for root, does not), so a start as root on a locked account fails at once and says so. A system
 * account such as `nobody` is refused too; an ordinary user works.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';

/** A running test SFTP server (see the module comment). */
export interface TestSftpServer {
  /** Always 127.0.0.1. */
  host: string;
  /** The TCP port sshd listens on (the same after `restart()`). */
  port: number;
  /** The login: the current OS user (root when run as root). */
  username: string;
  /** Path of the client's private key (ed25519, OpenSSH format, no passphrase). */
  privateKeyPath: string;
  /** The host key's fingerprint as `ssh-keygen -lf` prints it: `SHA256:<base64 without padding>`. */
  hostKeySha256: string;
  /** The local directory the user's SFTP paths are relative to; holds `inbox/` and `outbox/`. */
  root: string;
  /** Stops sshd and the processes of its open connections (SIGTERM); idempotent. */
  stop(): Promise<void>;
  /** Stops and starts sshd again on the same port with the same host key and client key. */
  restart(): Promise<void>;
  /** Kills the processes of every open connection (SIGKILL), as a cut line would; sshd keeps listening. */
  cutConnections(): Promise<void>;
}

/** Where Debian's package installs the daemon; `SSHD_PATH` overrides it. */
const SSHD = process.env.SSHD_PATH ?? '/usr/sbin/sshd';
const READY_TIMEOUT_MS = 15_000;

/**
 * Why the test SFTP server cannot start on this machine (sshd or ssh-keygen missing), or null when
 * it can. Test files that need it skip, with this reason, on a machine without OpenSSH, unless
 * `REQUIRE_SSHD=1` (which `.ci/run` sets, so CI fails rather than skips): `npm test` passes on a
 * fresh machine that has only Node, Python and PostgreSQL's packages (README).
 */
export function testSftpServerUnavailable(): string | null {
  if (!existsSync(SSHD)) return `${SSHD} not found (apt-get install openssh-server)`;
  try {
    execFileSync('sh', ['-c', 'command -v ssh-keygen'], { stdio: 'ignore' });
  } catch {
    return 'ssh-keygen not found (apt-get install openssh-client)';
  }
  return null;
}

/** Whether test files needing the test SFTP server skip here: it is unavailable and `REQUIRE_SSHD` is not `1`. */
export function skipWithoutTestSftpServer(file: string): boolean {
  const missing = testSftpServerUnavailable();
  if (missing === null || process.env.REQUIRE_SSHD === '1') return false;
  console.warn(`${file}: skipped, the test SFTP server needs OpenSSH: ${missing}`);
  return true;
}

/**
 * Starts sshd on 127.0.0.1 and a free port with the state directory `opts.dir` (created when
 * missing) and resolves once it answers with its SSH banner. Throws when sshd is not installed
 * (with the `apt-get install openssh-server` hint), when `ssh-keygen` is missing, or when sshd exits
 * or stays silent at start (with the tail of `sshd.log`).
 */
export async function startTestSftpServer(opts: { dir: string }): Promise<TestSftpServer> {
  if (!existsSync(SSHD)) {
    throw new Error(`${SSHD} not found: the test SFTP server needs OpenSSH's server (apt-get install openssh-server)`);
  }
  const dir = resolve(opts.dir);
  // sshd_config splits its values at whitespace (and the ForceCommand line is a command line).
  if (/[\s"'\\]/.test(dir)) throw new Error(`the test SFTP server's state directory must not contain spaces, quotes or backslashes: ${dir}`);
  const root = join(dir, 'root');
  for (const d of [dir, root, join(root, 'inbox'), join(root, 'outbox')]) mkdirSync(d, { recursive: true });
  const hostKey = join(dir, 'host_ed25519');
  const clientKey = join(dir, 'client_ed25519');
  generateKey(hostKey, 'test-bank-host');
  generateKey(clientKey, 'test-bank-client');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${clientKey}.pub`), { mode: 0o600 });

  const username = userInfo().username;
  const isRoot = process.getuid?.() === 0;
  if (isRoot && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755, recursive: true });
  if (isRoot) refuseLockedAccount(username);
  let port = 0;
  const configPath = join(dir, 'sshd_config');
  const configure = async () => {
    port = await freePort();
    writeFileSync(configPath, sshdConfig({ dir, root, port, hostKey, username, isRoot }));
    // Checks the configuration (sshd -t), so a bad option fails here with sshd's own words.
    try {
      execFileSync(SSHD, ['-t', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      throw new Error(`sshd refused its configuration ${configPath}: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`);
    }
  };

  let child: ChildProcess | undefined;
  const logPath = join(dir, 'sshd.log');
  const listenerPid = () => (child?.pid !== undefined && child.exitCode === null && child.signalCode === null ? child.pid : undefined);
  // sshd puts each connection's processes in a session of their own (setsid), so they are found by
  // parentage, not by process group, and looked up before the listener dies (then they lose it).
  const signalSessions = (signal: NodeJS.Signals) => {
    const pid = listenerPid();
    if (pid !== undefined) for (const p of descendants(pid)) signalQuietly(p, signal);
  };
  const killAll = () => {
    const pid = listenerPid();
    if (pid === undefined) return;
    const sessions = descendants(pid);
    signalQuietly(pid, 'SIGTERM');
    for (const p of sessions) signalQuietly(p, 'SIGTERM');
  };
  process.on('exit', killAll);

  const start = async () => {
    const log = openSync(logPath, 'a');
    const proc = spawn(SSHD, ['-D', '-e', '-f', configPath], { stdio: ['ignore', log, log] });
    closeSync(log);
    child = proc;
    const exited = new Promise<never>((_, reject) => {
      proc.once('error', (err) => reject(new Error(`could not run ${SSHD}: ${err.message}`)));
      proc.once('exit', (code, signal) => reject(new Error(`sshd exited at start (code ${code}, signal ${signal}); ${logTail(logPath)}`)));
    });
    exited.catch(() => {});
    await Promise.race([waitForBanner(port, READY_TIMEOUT_MS, logPath), exited]);
  };

  const stop = async () => {
    const proc = child;
    const pid = listenerPid();
    if (!proc || pid === undefined) return;
    const sessions = descendants(pid);
    const gone = new Promise<void>((done) => proc.once('exit', () => done()));
    killAll();
    await gone;
    // A connection's processes that have not ended on SIGTERM within 2 s (seen on a loaded CI
    // machine: the held connection of test/e2e/sftp-transport.test.ts never closed) are killed, so
    // stop() always ends the open connections.
    for (let waited = 0; waited < 2000 && sessions.some(alive); waited += 50) await new Promise((r) => setTimeout(r, 50));
    for (const p of sessions.filter(alive)) signalQuietly(p, 'SIGKILL');
  };

  // The free port is found before sshd binds it: when another process took it meanwhile, try another.
  for (let attempt = 1; ; attempt += 1) {
    await configure();
    try {
      await start();
      break;
    } catch (err) {
      if (attempt >= 3 || !/Address already in use|Bind to port/i.test(String(err))) throw err;
    }
  }
  return {
    host: '127.0.0.1',
    port,
    username,
    privateKeyPath: clientKey,
    hostKeySha256: publicKeyFingerprint(readFileSync(`${hostKey}.pub`, 'utf8')),
    root,
    async stop() {
      await stop();
      process.off('exit', killAll);
    },
    async restart() {
      await stop();
      process.off('exit', killAll);
      process.on('exit', killAll);
      await start();
    },
    async cutConnections() {
      signalSessions('SIGKILL');
    },
  };
}

/**
 * The fingerprint `ssh-keygen -lf` prints for an OpenSSH public key line (`ssh-ed25519 AAAA… comment`):
 * `SHA256:` and the base64, without padding, of the sha256 of the key blob.
 */
export function publicKeyFingerprint(publicKeyLine: string): string {
  const blob = publicKeyLine.trim().split(/\s+/)[1];
  if (!blob) throw new Error('not an OpenSSH public key line');
  return `SHA256:${createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

function generateKey(path: string, comment: string): void {
  if (existsSync(path) && existsSync(`${path}.pub`)) return;
  try {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`ssh-keygen failed for ${path} (apt-get install openssh-client): ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`);
  }
}

function sshdConfig(o: { dir: string; root: string; port: number; hostKey: string; username: string; isRoot: boolean }): string {
  const lines = [
    `# Test bank SFTP server (tools/test-bank/sshd.ts); generated, do not edit.`,
    `ListenAddress 127.0.0.1:${o.port}`,
    `HostKey ${o.hostKey}`,
    `PidFile ${join(o.dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(o.dir, 'authorized_keys')}`,
    `AllowUsers ${o.username}`,
    `PubkeyAuthentication yes`,
    `PasswordAuthentication no`,
    `KbdInteractiveAuthentication no`,
    `PermitRootLogin ${o.isRoot ? 'prohibit-password' : 'no'}`,
    `UsePAM no`,
    `StrictModes no`,
    `UseDNS no`,
    `PermitTTY no`,
    `X11Forwarding no`,
    `AllowTcpForwarding no`,
    `AllowAgentForwarding no`,
    `PrintMotd no`,
    `LogLevel VERBOSE`,
    `Subsystem sftp internal-sftp`,
    `ForceCommand internal-sftp -d ${o.root}`,
  ];
  // OpenSSH 9.8 and later penalise a source address that fails to authenticate (the wrong-key test
  // would lock loopback out for a while); this server is on loopback only.
  if (opensshAtLeast(9, 8)) lines.push('PerSourcePenalties no');
  return `${lines.join('\n')}\n`;
}

function opensshAtLeast(major: number, minor: number): boolean {
  let banner = '';
  try {
    banner = execFileSync(SSHD, ['-V'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  } catch (err) {
    banner = String((err as { stderr?: Buffer }).stderr ?? '');
  }
  const m = /OpenSSH_(\d+)\.(\d+)/.exec(banner);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}

function freePort(): Promise<number> {
  return new Promise((resolveP, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolveP(port));
    });
  });
}

/** Resolves once a TCP connection to the port reads an `SSH-2.0-` banner. */
async function waitForBanner(port: number, timeoutMs: number, logPath: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await readsBanner(port)) return;
    if (Date.now() > deadline) throw new Error(`sshd did not answer on 127.0.0.1:${port} within ${timeoutMs} ms; ${logTail(logPath)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function readsBanner(port: number): Promise<boolean> {
  return new Promise((resolveP) => {
    const sock = connect({ host: '127.0.0.1', port });
    let data = '';
    const done = (ok: boolean) => {
      sock.destroy();
      resolveP(ok);
    };
    sock.setTimeout(2_000, () => done(false));
    sock.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (data.includes('\n')) done(data.startsWith('SSH-2.0-'));
    });
    sock.on('error', () => done(false));
    sock.on('close', () => done(false));
  });
}

/** Throws when `username`'s /etc/shadow password starts with `!` (sshd would refuse every login). */
function refuseLockedAccount(username: string): void {
  let line: string | undefined;
  try {
    line = readFileSync('/etc/shadow', 'utf8').split('\n').find((l) => l.startsWith(`${username}:`));
  } catch {
    return;
  }
  if (line?.split(':')[1]?.startsWith('!')) {
    throw new Error(
      `the account ${username} is locked (its /etc/shadow password starts with "!") and sshd refuses every login to a locked ` +
        `account: unlock it for key logins with \`usermod -p '*' ${username}\` (still no password), or run as another user`,
    );
  }
}

/** Whether process `pid` still exists (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {}
}

/** Every process below `root` in the process tree (Linux /proc), children before grandchildren. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

function logTail(logPath: string): string {
  try {
    const lines = readFileSync(logPath, 'utf8').trim().split('\n');
    return `sshd.log (${logPath}) ends with: ${lines.slice(-8).join(' | ')}`;
  } catch {
    return `no sshd.log at ${logPath}`;
  }
}
