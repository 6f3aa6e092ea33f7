import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { resolveTemporalCli } from './binaries';
import { SEARCH_ATTRIBUTE_NAMES } from './search-attributes';

export interface DevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolvePort(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts the Temporal dev server with our search attributes and waits until it answers. */
export async function startDevServer(opts: {
  port?: number;
  uiPort?: number;
  dbFile?: string;
  headless?: boolean;
  log?: (line: string) => void;
}): Promise<DevServer> {
  const cli = resolveTemporalCli();
  const port = opts.port ?? (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error'];
  for (const name of SEARCH_ATTRIBUTE_NAMES) args.push('--search-attribute', `${name}=Keyword`);
  if (opts.dbFile) {
    // WAL, synchronous=off: 2.7x payouts/s (docs/benchmarks.md); an OS crash may lose the dev server's last writes.
    args.push('--db-filename', opts.dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=off');
  }
  if (opts.headless) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort ?? 8233), '--ui-disable-news-fetch');
  args.push('--dynamic-config-value', 'frontend.rps=20000', '--dynamic-config-value', 'frontend.namespaceRPS=20000');
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));
  let stderr = '';
  child.stderr?.on('data', (b) => {
    stderr += String(b);
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited (${child.exitCode}): ${stderr}`);
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      await conn.workflowService.getSystemInfo({});
      await conn.close();
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`temporal dev server did not answer on ${address}: ${String(err)}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    address,
    uiUrl: opts.headless ? null : `http://localhost:${opts.uiPort ?? 8233}`,
    process: child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
