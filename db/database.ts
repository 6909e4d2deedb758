import pg from 'pg';

/** Database name of a PostgreSQL URL. */
export function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`DATABASE_URL names no database: ${databaseUrl}`);
  return name;
}

function maintenanceUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  return url.toString();
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function withMaintenanceClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: maintenanceUrl(databaseUrl), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in the URL when it does not exist yet. Returns true when it was created. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseName(databaseUrl);
  return withMaintenanceClient(databaseUrl, async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`create database ${quoteIdent(name)}`);
    } catch (error) {
      // Another process created it between our check and our create.
      if ((error as { code?: string }).code !== '42P04') throw error;
      return false;
    }
    return true;
  });
}

/** Drops a database (used by the test harness for its per-run database). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  await withMaintenanceClient(databaseUrl, (client) => client.query(`drop database if exists ${quoteIdent(name)} with (force)`));
}

/**
 * SQLSTATEs of a lost connection (class 08), of a server shutting down, crashed or starting up (57P01-57P03), or of
 * one whose connections are all taken (53300: every process of a scaled-out platform opening its pool at once).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
/** Node's codes of a server that cannot be reached. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** pg's and knex's messages (knex prefixes the query) when a connection is lost or none could be had in time. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|Connection ended unexpectedly|Client has encountered a connection error|Timeout acquiring a connection/;

/**
 * Whether `error` (of pg, knex or MikroORM, which keeps the driver's `code`) says PostgreSQL could not be reached or
 * dropped the connection, rather than refusing what was asked: retrying later may succeed.
 */
export function databaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code);
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}
