/**
 * A small client of the Wise Platform API (docs/rails.md "Payout partner"). JSON numbers travel as
 * their decimal text both ways (JSON.parse's `context.source`), so no amount ever becomes a float.
 */
import { RailError } from '../adapter';

/** Outcome unknown (timeout, connection lost, 5xx): the same request may be sent again. Not a RailError. */
export class PartnerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PartnerUnavailableError';
  }
}

export class JsonNumber {
  constructor(readonly text: string) {
    if (!/^-?[0-9]+(\.[0-9]+)?$/.test(text)) throw new Error(`not a decimal number: ${text}`);
  }
}

export function toJson(value: unknown): string {
  const numbers: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof JsonNumber) {
      numbers.push(v.text);
      return `\u0000num${numbers.length - 1}\u0000`;
    }
    return v;
  });
  return text.replace(/"\\u0000num(\d+)\\u0000"/g, (_m, i: string) => numbers[Number(i)]!);
}

export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: { source?: string }) {
    return typeof value === 'number' && context?.source !== undefined ? context.source : value;
  } as (key: string, value: unknown) => unknown);
}

export type PartnerJson = Record<string, unknown>;

function errorOf(status: number, body: unknown): { code: string; message: string } {
  const b = (body ?? {}) as { errors?: Array<{ code?: string; message?: string; path?: string }>; error?: string; message?: string };
  const first = b.errors?.[0];
  return { code: first?.code ?? b.error ?? `http_${status}`, message: first?.message ?? b.message ?? `HTTP ${status}` };
}

export function wiseClient(options: { apiUrl: string; token: string; timeoutMs: number }) {
  async function call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<PartnerJson> {
    let res: Response;
    try {
      res = await fetch(`${options.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${options.token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: toJson(body) } : {}),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      throw new PartnerUnavailableError(`${method} ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new PartnerUnavailableError(`${method} ${path}: the answer was cut: ${err instanceof Error ? err.message : String(err)}`);
    }
    let parsed: unknown = null;
    try {
      parsed = text ? parseJsonExact(text) : null;
    } catch {
      parsed = null;
    }
    if (res.status >= 500 || res.status === 429) throw new PartnerUnavailableError(`${method} ${path}: HTTP ${res.status}`);
    if (res.status >= 400) {
      const e = errorOf(res.status, parsed);
      const failureCode = res.status === 422 || res.status === 400 ? 'invalid_destination' : 'provider_declined';
      throw new RailError(`The payout partner refused ${method} ${path}: ${e.message}`, false, failureCode, `wise:${e.code}`);
    }
    return (parsed ?? {}) as PartnerJson;
  }
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body: unknown) => call('POST', path, body),
    put: (path: string, body?: unknown) => call('PUT', path, body),
  };
}

export type WiseClient = ReturnType<typeof wiseClient>;
