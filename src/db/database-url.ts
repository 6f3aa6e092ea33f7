/** DATABASE_URL in libpq's forms, one host or several (docs/operations.md "Following the primary"). No I/O. */

/** libpq's `target_session_attrs`: which server a connection may end on (libpq "Parameter Key Words"). */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

/** One server of the URL; `port` defaults to 5432 as in libpq. */
export interface DatabaseHost {
  host: string;
  port: number;
}

/** A parsed DATABASE_URL. */
export interface ParsedDatabaseUrl {
  hosts: DatabaseHost[];
  targetSessionAttrs: TargetSessionAttrs;
  /** One single-host URL per host, without `target_session_attrs`, for node-postgres. */
  hostUrls: string[];
  /** False: the URL goes to node-postgres unchanged (one host, `target_session_attrs` any). */
  needsSelection: boolean;
}

/** A DATABASE_URL that is neither one URL nor libpq's multi-host form; the message says what is wrong. */
export class DatabaseUrlError extends Error {
  constructor(why: string) {
    super(`DATABASE_URL is not a PostgreSQL URL: ${why} (expected postgres://user@host:port/db or postgres://user@h1:p1,h2:p2/db?target_session_attrs=read-write)`);
    this.name = 'DatabaseUrlError';
  }
}

const URL_SHAPE = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/i;

/** One `host[:port]` of the host list; IPv6 in brackets (`[::1]:5432`). */
function parseHost(part: string): DatabaseHost {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(part);
  if (!m) throw new DatabaseUrlError(`the host "${part}" is not host or host:port`);
  const port = m[2] === undefined ? 5432 : Number(m[2]);
  if (port < 1 || port > 65535) throw new DatabaseUrlError(`the port of "${part}" is out of range`);
  return { host: m[1]!, port };
}

/** Parses DATABASE_URL (libpq's URI syntax); throws {@link DatabaseUrlError} with the reason. */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const m = URL_SHAPE.exec(url.trim());
  if (!m) {
    if (isUrl(url) && !new URL(url).searchParams.has('target_session_attrs')) return passThrough(url, null);
    throw new DatabaseUrlError('it does not start with postgres:// or postgresql://, or has a fragment');
  }
  const [, scheme, userinfo, hostList = '', path = '', query = ''] = m;
  const params = new URLSearchParams(query.slice(1));
  const tsa = params.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(tsa)) {
    throw new DatabaseUrlError(`target_session_attrs=${tsa} is not one of ${TARGET_SESSION_ATTRS.join(', ')}`);
  }
  if (!hostList.includes(',') && tsa === 'any') {
    if (!isUrl(url)) throw new DatabaseUrlError('it is not a valid URL');
    return passThrough(url, hostList);
  }
  if (!hostList) throw new DatabaseUrlError('it names no host');
  const hosts = hostList.split(',').map((p) => parseHost(p.trim()));
  params.delete('target_session_attrs');
  const rest = `${path}${params.size ? `?${params.toString()}` : ''}`;
  const auth = userinfo === undefined ? '' : `${userinfo}@`;
  const hostUrls = hosts.map((h) => `${scheme}${auth}${h.host}:${h.port}${rest}`);
  if (!hostUrls.every(isUrl)) throw new DatabaseUrlError('the user, password, database or parameters are not valid URL text (percent-encode them)');
  return { hosts, targetSessionAttrs: tsa as TargetSessionAttrs, hostUrls, needsSelection: true };
}

const isUrl = (u: string): boolean => {
  try {
    new URL(u);
    return true;
  } catch {
    return false;
  }
};

/** One host and no `target_session_attrs`: node-postgres gets the URL unchanged (sockets, `?host=` and all). */
function passThrough(url: string, hostList: string | null): ParsedDatabaseUrl {
  let hosts: DatabaseHost[] = [];
  try {
    if (hostList) hosts = [parseHost(hostList)];
  } catch {
    // node-postgres reads it; the host list is for labels only
  }
  return { hosts, targetSessionAttrs: 'any', hostUrls: [url], needsSelection: false };
}

/** `host:port` of a host, for logs and metrics labels. */
export const hostLabel = (h: DatabaseHost): string => `${h.host}:${h.port}`;

/** `url` naming database `name` instead (one host or several; user, hosts and parameters kept). Throws {@link DatabaseUrlError}. */
export function withDatabase(url: string, name: string): string {
  const m = URL_SHAPE.exec(url.trim());
  if (!m) throw new DatabaseUrlError('it does not start with postgres:// or postgresql://, or has a fragment');
  const [, scheme, userinfo, hostList = '', , query = ''] = m;
  return `${scheme}${userinfo === undefined ? '' : `${userinfo}@`}${hostList}/${encodeURIComponent(name)}${query}`;
}
