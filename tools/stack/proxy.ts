/**
 * A small round-robin HTTP proxy in front of the `npm run api` processes of a stack (what a load
 * balancer does in production). Each request goes to the next upstream; when an upstream refuses
 * the connection (its process is down) the request, which it never saw, goes to the next one.
 * Any other failure (the connection cut after the request was sent) is a 502 to the client: it
 * cannot know whether the request was applied, exactly as behind a real balancer; clients retry
 * with their Idempotency-Key.
 */
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A running proxy. */
export interface Proxy {
  url: string;
  port: number;
  /** Requests answered 502 because an upstream failed mid-request. */
  readonly badGateways: number;
  close(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1 (a free port unless given). `upstreams()` is read per request, so
 * processes restarted on new ports are picked up.
 */
export function startProxy(upstreams: () => number[], opts: { port?: number } = {}): Promise<Proxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  let badGateways = 0;

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, tried: number): void {
    const ports = upstreams();
    if (ports.length === 0 || tried >= ports.length * 2) {
      badGateways++;
      res.writeHead(502, { 'Content-Type': 'application/json' }).end('{"error":{"code":"bad_gateway","message":"no upstream answered"}}');
      return;
    }
    const port = ports[next++ % ports.length]!;
    let responded = false;
    const up = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent },
      (upRes) => {
        responded = true;
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
        upRes.on('error', () => res.destroy());
      },
    );
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (responded) {
        res.destroy();
        return;
      }
      // Refused: the upstream never saw the request, so another may take it.
      if (err.code === 'ECONNREFUSED') return forward(req, res, body, tried + 1);
      badGateways++;
      if (!res.headersSent) {
        res.writeHead(502, { 'Content-Type': 'application/json' }).end(`{"error":{"code":"bad_gateway","message":${JSON.stringify(err.message)}}}`);
      } else res.destroy();
    });
    up.end(body);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 0));
    req.on('error', () => res.destroy());
  });
  server.keepAliveTimeout = 5000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        get badGateways() {
          return badGateways;
        },
        close: () =>
          new Promise<void>((done) => {
            agent.destroy();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
