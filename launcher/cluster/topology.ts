/**
 * The Temporal cluster of `npm run cluster` (README, Scaling out): which server processes run, on which ports, with
 * how many history shards and how many PostgreSQL connections, all from `launcher/cluster/cluster.json`. Each process gets a
 * Temporal server configuration of its own rendered from it (YAML accepts JSON), so the file under version control
 * is the one place to change the topology; temporal-docker-compose.yml is generated from the same file (compose.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type TemporalService = 'frontend' | 'history' | 'matching' | 'worker';

export interface ClusterProcess {
  /** Unique within the cluster; names the process's folder and log. */
  name: string;
  service: TemporalService;
  grpcPort: number;
  membershipPort: number;
  /** The frontend's HTTP API. */
  httpPort?: number;
}

export interface ClusterTopology {
  serverVersion: string;
  numHistoryShards: number;
  databases: { default: string; visibility: string };
  persistence: { maxConns: number; maxIdleConns: number; visibilityMaxConns: number; visibilityMaxIdleConns: number };
  processes: ClusterProcess[];
  /** The Temporal Web UI server (the one `temporal server start-dev` embeds) and its port. */
  ui: { version: string; port: number };
  dynamicConfig: Record<string, unknown>;
}

/** Where PostgreSQL is, as the Temporal server and its SQL tool want it. */
export interface PostgresEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
}

export const TOPOLOGY_FILE = join(import.meta.dirname, 'cluster.json');

export function loadTopology(file = TOPOLOGY_FILE): ClusterTopology {
  const topology = JSON.parse(readFileSync(file, 'utf8')) as ClusterTopology;
  const names = new Set(topology.processes.map((p) => p.name));
  if (names.size !== topology.processes.length) throw new Error(`${file}: process names must be unique`);
  // Temporal stores membership ports in a smallint column.
  for (const p of topology.processes)
    if (p.membershipPort > 32_767) throw new Error(`${file}: ${p.name}'s membershipPort must be at most 32767 (Temporal stores it as a smallint)`);
  for (const service of ['frontend', 'history', 'matching', 'worker'] as const)
    if (!topology.processes.some((p) => p.service === service)) throw new Error(`${file}: no ${service} process`);
  return topology;
}

/** The frontend's gRPC address: what agentry's TEMPORAL_ADDRESS points at (`host`: the frontend's container on Docker). */
export function frontendAddress(topology: ClusterTopology, host = '127.0.0.1'): string {
  return `${host}:${topology.processes.find((p) => p.service === 'frontend')!.grpcPort}`;
}

/** The server binary's arguments that start one process of `service` with the configuration `<root>/config/development.yaml`. */
export function serverArgs(root: string, service: string): string[] {
  return ['--root', root, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start', '--service', service];
}

/** The SQL tool's arguments that reach `database` on `endpoint` (a command and its options follow them). */
export function sqlToolArgs(endpoint: PostgresEndpoint, database: string): string[] {
  const password = endpoint.password ? ['--password', endpoint.password] : [];
  return [
    '--plugin',
    'postgres12',
    '--endpoint',
    endpoint.host,
    '--port',
    String(endpoint.port),
    '--user',
    endpoint.user,
    ...password,
    '--database',
    database,
  ];
}

/** PostgreSQL's endpoint from agentry's DATABASE_URL (the cluster's databases live on the same server). */
export function postgresEndpoint(databaseUrl: string): PostgresEndpoint {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname || '127.0.0.1',
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password),
  };
}

/**
 * The Temporal server configuration of one process of the cluster (`development.yaml` in its config folder). With
 * `frontendHost` (the frontend's container, when each process runs in a container of its own: compose.ts), a process
 * binds on its container's address instead of 127.0.0.1, and membership broadcasts that address (Temporal takes only
 * an IP there, not a host name).
 */
export function serverConfig(
  topology: ClusterTopology,
  process: ClusterProcess,
  pg: PostgresEndpoint,
  dynamicConfigFile: string,
  frontendHost?: string,
): object {
  const local = !frontendHost;
  const store = (databaseName: string, maxConns: number, maxIdleConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${pg.host}:${pg.port}`,
      connectProtocol: 'tcp',
      user: pg.user,
      password: pg.password,
      maxConns,
      maxIdleConns,
      maxConnLifetime: '1h',
    },
  });
  const { persistence: pool } = topology;
  // Every process lists every service (membership tracks only the services it is told of): its own service with
  // its own ports, which it binds, and each other service with the ports of that service's first process. It finds
  // the other processes of a service through membership (their addresses are in the database).
  const rpc = (p: ClusterProcess) => ({
    rpc: {
      grpcPort: p.grpcPort,
      membershipPort: p.membershipPort,
      ...(local ? { bindOnLocalHost: true } : {}),
      ...(p.httpPort ? { httpPort: p.httpPort } : {}),
    },
  });
  const services = Object.fromEntries(
    (['frontend', 'history', 'matching', 'worker'] as const).map((service) => [
      service,
      rpc(process.service === service ? process : topology.processes.find((p) => p.service === service)!),
    ]),
  );
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: topology.numHistoryShards,
      datastores: {
        default: store(topology.databases.default, pool.maxConns, pool.maxIdleConns),
        visibility: store(topology.databases.visibility, pool.visibilityMaxConns, pool.visibilityMaxIdleConns),
      },
    },
    global: { membership: { maxJoinDuration: '30s', ...(local ? { broadcastAddress: '127.0.0.1' } : {}) } },
    services,
    publicClient: { hostPort: frontendAddress(topology, frontendHost) },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: frontendAddress(topology, frontendHost) },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

/** The Temporal Web UI server's configuration (`development.yaml` in its config folder). */
export function uiConfig(topology: ClusterTopology, namespace: string): object {
  return {
    temporalGrpcAddress: frontendAddress(topology),
    host: '127.0.0.1',
    port: topology.ui.port,
    enableUi: true,
    uiRootPath: '/',
    defaultNamespace: namespace,
  };
}

/** The dynamic configuration file every process reads (Temporal's format: a list of constrained values per key). */
export function dynamicConfig(topology: ClusterTopology): object {
  return Object.fromEntries(Object.entries(topology.dynamicConfig).map(([key, value]) => [key, [{ value }]]));
}
