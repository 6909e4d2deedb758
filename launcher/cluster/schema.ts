/**
 * The cluster's two PostgreSQL databases (persistence and visibility): created on the configured PostgreSQL when
 * missing and brought to the server's schema version with Temporal's SQL tool. A second start finds them in place
 * and only applies schema versions it has not applied yet (none, for the same server version).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { ensureDatabase } from '../../db/database.js';
import type { ClusterTools } from './tools.js';
import { sqlToolArgs, type PostgresEndpoint } from './topology.js';

/** The URL of `database` on the server of `databaseUrl`. */
export function siblingDatabaseUrl(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

async function hasSchemaVersion(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(`select to_regclass('public.schema_version') is not null as found`)).rows[0].found as boolean;
  } finally {
    await client.end();
  }
}

function sqlTool(tools: ClusterTools, endpoint: PostgresEndpoint, database: string, args: string[]): void {
  const result = spawnSync(tools.sqlTool, [...sqlToolArgs(endpoint, database), ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`temporal-sql-tool ${args[0]} on ${database} failed: ${(result.stderr || result.stdout || '').trim()}`);
}

/** Creates `database` when missing and applies the schema of `kind` (`temporal` or `visibility`); answers whether it was created. */
export async function ensureTemporalDatabase(
  tools: ClusterTools,
  endpoint: PostgresEndpoint,
  databaseUrl: string,
  database: string,
  kind: 'temporal' | 'visibility',
): Promise<boolean> {
  const url = siblingDatabaseUrl(databaseUrl, database);
  const created = await ensureDatabase(url);
  if (!(await hasSchemaVersion(url))) sqlTool(tools, endpoint, database, ['setup-schema', '--version', '0.0']);
  sqlTool(tools, endpoint, database, ['update-schema', '--schema-dir', join(tools.schemaDir, kind, 'versioned')]);
  return created;
}
