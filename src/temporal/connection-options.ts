/** How every process connects to Temporal (docs/operations.md "Temporal TLS"): address, TLS, API key. */
import { readFileSync } from 'node:fs';
import type { Config } from '../config';

/** TLS settings in the shape both Temporal connection classes take. */
export interface TemporalTls {
  /** PEM; absent: the system's roots. */
  serverRootCACertificate?: Buffer;
  /** mTLS, PEM. */
  clientCertPair?: { crt: Buffer; key: Buffer };
  serverNameOverride?: string;
}

export interface TemporalConnectionOptions {
  /** `host:port`. */
  address: string;
  /** Absent: plaintext. */
  tls?: TemporalTls;
  /** Bearer token on every call (Temporal Cloud); implies TLS. */
  apiKey?: string;
}

/** Connection options from TEMPORAL_*; reads the PEM files now, throwing with the variable's name. Keys are never logged. */
export function temporalConnectionOptions(config: Config): TemporalConnectionOptions {
  const address = config.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  const read = (name: string, path: string | undefined): Buffer | undefined => {
    if (!path) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${name}=${path} cannot be read: ${(err as Error).message}`);
    }
  };
  const ca = read('TEMPORAL_TLS_CA_PATH', config.TEMPORAL_TLS_CA_PATH);
  const crt = read('TEMPORAL_TLS_CERT_PATH', config.TEMPORAL_TLS_CERT_PATH);
  const key = read('TEMPORAL_TLS_KEY_PATH', config.TEMPORAL_TLS_KEY_PATH);
  const apiKey = config.TEMPORAL_API_KEY;
  if (!!crt !== !!key) throw new Error('TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH are set together or not at all');
  const on = config.TEMPORAL_TLS || !!ca || !!crt || !!apiKey;
  if (!on) return { address };
  const tls: TemporalTls = {};
  if (ca) tls.serverRootCACertificate = ca;
  if (crt && key) tls.clientCertPair = { crt, key };
  if (config.TEMPORAL_TLS_SERVER_NAME) tls.serverNameOverride = config.TEMPORAL_TLS_SERVER_NAME;
  return { address, tls, ...(apiKey ? { apiKey } : {}) };
}
