import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { connectTemporal } from '../../src/temporal/client';
import { temporalConnectionOptions } from '../../src/temporal/connection-options';

/**
 * docs/operations.md "Temporal TLS": the service reaches a Temporal frontend over mTLS (CA, client
 * certificate and key from configuration), and refuses a server whose certificate its CA did not
 * sign. The secured endpoint is a TLS-terminating proxy on loopback (it requires a client
 * certificate signed by the test CA and advertises ALPN h2, as a Temporal frontend with TLS does)
 * in front of the suite's dev server, which has no TLS settings of its own. Certificates are made
 * with openssl for this run.
 */

let dir: string;
let server: Server;
let address: string;
const sockets = new Set<Socket>();

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA (`<name>-ca.pem`) and, signed by it, a server and a client certificate. */
function makePki(name: string): void {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name} test CA`, '-keyout', `${name}-ca.key`, '-out', `${name}-ca.pem`]);
  // Extensions make both X.509 v3 (the worker's TLS stack, rustls, refuses v1 certificates).
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const who of ['server', 'client']) {
    openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name} ${who}`, '-keyout', `${name}-${who}.key`, '-out', `${name}-${who}.csr`]);
    openssl([
      'x509', '-req', '-in', `${name}-${who}.csr`, '-CA', `${name}-ca.pem`, '-CAkey', `${name}-ca.key`, '-CAcreateserial', '-days', '2',
      '-extfile', `${who}.ext`, '-out', `${name}-${who}.pem`,
    ]);
  }
}

const file = (f: string) => join(dir, f);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
  makePki('good');
  makePki('other');
  const [upHost, upPort] = inject('temporalAddress').split(':');
  server = createServer(
    {
      key: readFileSync(file('good-server.key')),
      cert: readFileSync(file('good-server.pem')),
      ca: [readFileSync(file('good-ca.pem'))],
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (tlsSocket) => {
      const up = connect(Number(upPort), upHost);
      for (const s of [tlsSocket, up]) {
        sockets.add(s);
        s.once('close', () => sockets.delete(s));
        s.on('error', () => {
          tlsSocket.destroy();
          up.destroy();
        });
      }
      tlsSocket.pipe(up);
      up.pipe(tlsSocket);
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  address = `127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string>) => loadConfig({ TEMPORAL_ADDRESS: address, ...extra });

describe('Temporal over TLS (docs/operations.md "Temporal TLS")', () => {
  it('connects the client and the worker connection with mTLS from configuration, and runs workflow calls through it', async () => {
    const config = env({
      TEMPORAL_TLS_CA_PATH: file('good-ca.pem'),
      TEMPORAL_TLS_CERT_PATH: file('good-client.pem'),
      TEMPORAL_TLS_KEY_PATH: file('good-client.key'),
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
    const options = temporalConnectionOptions(config);
    expect(options.tls?.clientCertPair).toBeDefined();
    const client = await connectTemporal(options, 'default');
    try {
      const workflowId = `tls-probe-${Date.now()}`;
      const handle = await client.workflow.start('tlsProbe', { workflowId, taskQueue: 'tls-probe-nobody-polls' });
      const described = await handle.describe();
      expect(described.workflowId).toBe(workflowId);
      expect(described.status.name).toBe('RUNNING');
      await handle.terminate('tls probe done');
      expect((await handle.describe()).status.name).toBe('TERMINATED');
    } finally {
      await client.connection.close();
    }
    const native = await NativeConnection.connect(options);
    await native.close();
  });

  it('refuses a server certificate that its CA did not sign', async () => {
    const options = temporalConnectionOptions(
      env({
        TEMPORAL_TLS_CA_PATH: file('other-ca.pem'),
        TEMPORAL_TLS_CERT_PATH: file('good-client.pem'),
        TEMPORAL_TLS_KEY_PATH: file('good-client.key'),
        TEMPORAL_TLS_SERVER_NAME: 'localhost',
      }),
    );
    await expect(Connection.connect({ ...options, connectTimeout: 5000 })).rejects.toThrow();
    await expect(NativeConnection.connect(options)).rejects.toThrow();
  });

  it('is refused by the server without a client certificate it trusts', async () => {
    const noClientCert = temporalConnectionOptions(env({ TEMPORAL_TLS_CA_PATH: file('good-ca.pem'), TEMPORAL_TLS_SERVER_NAME: 'localhost' }));
    await expect(Connection.connect({ ...noClientCert, connectTimeout: 5000 })).rejects.toThrow();
    const wrongClient = temporalConnectionOptions(
      env({
        TEMPORAL_TLS_CA_PATH: file('good-ca.pem'),
        TEMPORAL_TLS_CERT_PATH: file('other-client.pem'),
        TEMPORAL_TLS_KEY_PATH: file('other-client.key'),
        TEMPORAL_TLS_SERVER_NAME: 'localhost',
      }),
    );
    await expect(Connection.connect({ ...wrongClient, connectTimeout: 5000 })).rejects.toThrow();
  });

  it('turns TLS on from configuration only, and refuses a certificate without its key', () => {
    expect(temporalConnectionOptions(env({})).tls).toBeUndefined();
    expect(temporalConnectionOptions(env({ TEMPORAL_TLS: 'true' })).tls).toEqual({});
    const cloud = temporalConnectionOptions(env({ TEMPORAL_API_KEY: 'key-123' }));
    expect(cloud.apiKey).toBe('key-123');
    expect(cloud.tls).toEqual({});
    expect(() => temporalConnectionOptions(env({ TEMPORAL_TLS_CERT_PATH: file('good-client.pem') }))).toThrow(/TEMPORAL_TLS_KEY_PATH/);
    expect(() => temporalConnectionOptions(env({ TEMPORAL_TLS_CA_PATH: file('missing.pem') }))).toThrow(/TEMPORAL_TLS_CA_PATH/);
  });
});
