/**
 * A Temporal cluster of separate server processes for tests (`npm run cluster`'s topology, launcher/cluster/start-cluster.ts) on
 * free ports and databases of its own, under a supervisor whose messages are kept. The first start on a machine
 * builds the server binaries (minutes).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase } from '../../db/database.js';
import { siblingDatabaseUrl } from '../../launcher/cluster/schema.js';
import { startTemporalCluster } from '../../launcher/cluster/start-cluster.js';
import { loadTopology, type ClusterTopology } from '../../launcher/cluster/topology.js';
import { Supervisor } from '../../launcher/supervisor.js';
import { projectRoot } from '../../launcher/temporal-cli.js';
import { freePorts } from './free-port.js';

export interface TestCluster {
  address: string;
  topology: ClusterTopology;
  supervisor: Supervisor;
  /** What the supervisor and the start said: starts, crashes, restarts. */
  events: string[];
  /** Stops every process and drops the cluster's databases. */
  stop(): Promise<void>;
}

/** launcher/cluster/cluster.json moved to free ports and databases named for this run. */
async function testTopology(): Promise<ClusterTopology> {
  const topology = loadTopology();
  const { processes } = topology;
  // Membership ports are stored as PostgreSQL smallints: they stay below 32768.
  const membership = await freePorts(processes.length, { below: 32_768 });
  const ports = await freePorts(2 * processes.length + 1);
  const suffix = randomBytes(3).toString('hex');
  return {
    ...topology,
    databases: { default: `${topology.databases.default}_${suffix}`, visibility: `${topology.databases.visibility}_${suffix}` },
    processes: processes.map((p, i) => ({
      ...p,
      grpcPort: ports[2 * i]!,
      membershipPort: membership[i]!,
      ...(p.httpPort ? { httpPort: ports[2 * i + 1]! } : {}),
    })),
    ui: { ...topology.ui, port: ports.at(-1)! },
  };
}

/** Starts a cluster whose databases live on the PostgreSQL server of `databaseUrl`. */
export async function startTestCluster(databaseUrl: string): Promise<TestCluster> {
  const topology = await testTopology();
  const events: string[] = [];
  const supervisor = new Supervisor(projectRoot, { error: (m) => events.push(m), info: (m) => events.push(m) });
  const stop = async () => {
    await supervisor.stop();
    for (const name of Object.values(topology.databases)) await dropDatabase(siblingDatabaseUrl(databaseUrl, name));
  };
  try {
    const address = await startTemporalCluster({
      topology,
      databaseUrl,
      dir: mkdtempSync(join(tmpdir(), 'agentry-cluster-')),
      namespace: 'default',
      retentionDays: 1,
      supervisor,
      step: (m) => events.push(m),
    });
    return { address, topology, supervisor, events, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
