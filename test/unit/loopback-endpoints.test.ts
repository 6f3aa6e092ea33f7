/**
 * tools/loopback-endpoints.ts, shared by `npm run listen` and `npm run demo` (issue #56): the
 * webhook endpoints a tool registered are deleted when it ends, on Ctrl-C too, so none is left
 * pointing at a closed loopback port. A stand-in service records the DELETE requests.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LoopbackEndpoints } from '../../tools/loopback-endpoints';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const deletes: { path: string; auth: string | undefined }[] = [];
let server: Server;
let api: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method === 'DELETE') deletes.push({ path: req.url!, auth: req.headers.authorization });
    res.writeHead(req.url!.endsWith('/we_gone') ? 404 : 200, { 'Content-Type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('LoopbackEndpoints', () => {
  it('deletes each endpoint once, with the key, and says which could not be deleted', async () => {
    deletes.length = 0;
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const endpoints = new LoopbackEndpoints(api, 'sk_test_k');
      endpoints.add({ surface: 'A', base: '/sandbox/v1', id: 'we_a' });
      endpoints.add({ surface: 'C', base: '/sandbox/guide/v1', id: 'we_gone' });
      endpoints.add({ surface: 'B', base: '/sandbox/claim/v1', id: 'we_b' });
      await endpoints.deleteAll('B');
      expect(deletes).toEqual([{ path: '/sandbox/claim/v1/webhooks/we_b', auth: 'Bearer sk_test_k' }]);
      await endpoints.deleteAll();
      await endpoints.deleteAll(); // nothing left: no second DELETE
      expect(deletes.map((d) => d.path)).toEqual(['/sandbox/claim/v1/webhooks/we_b', '/sandbox/v1/webhooks/we_a', '/sandbox/guide/v1/webhooks/we_gone']);
      const lines = log.mock.calls.map((c) => String(c[0]));
      expect(lines).toContain('Surface A: endpoint we_a deleted');
      expect(lines).toContain('Surface C: endpoint we_gone NOT deleted (404); delete it with DELETE /sandbox/guide/v1/webhooks/we_gone');
    } finally {
      log.mockRestore();
    }
  });

  it('on SIGINT deletes every endpoint, then exits 130', async () => {
    deletes.length = 0;
    const script =
      `import { LoopbackEndpoints } from './tools/loopback-endpoints.ts';` +
      `const e = new LoopbackEndpoints(${JSON.stringify(api)}, 'sk_test_k');` +
      `e.add({ surface: 'A', base: '/sandbox/v1', id: 'we_sig' }); e.deleteOnSignals();` +
      `console.log('ready'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready')) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
    expect(deletes.map((d) => d.path)).toEqual(['/sandbox/v1/webhooks/we_sig']);
    expect(out).toContain('Surface A: endpoint we_sig deleted');
  }, 60_000);
});
