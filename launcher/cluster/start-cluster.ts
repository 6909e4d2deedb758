/**
 * Starts a Temporal cluster of our own (README, "A Temporal cluster on PostgreSQL"): the server binaries built once,
 * the two databases created and migrated, one server process per entry of the topology and the Web UI under the
 * launcher's supervisor, then the namespace and agentry's search attributes registered. Used by `npm run cluster`
 * and by the reliability tests, which run it on ports and databases of their own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectTemporal } from '../../integrations/temporal/client.js';
import { waitFor, type Supervisor } from '../supervisor.js';
import { ensureClusterTools } from './tools.js';
import { ensureTemporalDatabase } from './schema.js';
import { ensureNamespace, ensureSearchAttributes } from './namespace.js';
import { dynamicConfig, frontendAddress, postgresEndpoint, serverArgs, serverConfig, uiConfig, type ClusterTopology } from './topology.js';

export interface ClusterStart {
  topology: ClusterTopology;
  /** agentry's database URL: the cluster's databases go on the same PostgreSQL server. */
  databaseUrl: string;
  /** Folder of the processes' rendered configuration and logs. */
  dir: string;
  namespace: string;
  retentionDays: number;
  supervisor: Supervisor;
  step: (message: string) => void;
}

/** Resolves with the frontend's address once the namespace and its search attributes are in place. */
export async function startTemporalCluster({
  topology,
  databaseUrl,
  dir,
  namespace,
  retentionDays,
  supervisor,
  step,
}: ClusterStart): Promise<string> {
  const tools = ensureClusterTools({ server: topology.serverVersion, ui: topology.ui.version }, step);
  const endpoint = postgresEndpoint(databaseUrl);
  for (const [database, kind] of [
    [topology.databases.default, 'temporal'],
    [topology.databases.visibility, 'visibility'],
  ] as const) {
    const created = await ensureTemporalDatabase(tools, endpoint, databaseUrl, database, kind);
    step(`${created ? 'created' : 'using'} the Temporal database ${database} (schema up to date)`);
  }
  mkdirSync(dir, { recursive: true });
  const dynamicConfigFile = join(dir, 'dynamicconfig.yaml');
  writeFileSync(dynamicConfigFile, JSON.stringify(dynamicConfig(topology), null, 2));
  for (const process of topology.processes) {
    // YAML reads JSON: each process gets `<dir>/<name>/config/development.yaml`, the server's default file name.
    mkdirSync(join(dir, process.name, 'config'), { recursive: true });
    writeFileSync(
      join(dir, process.name, 'config', 'development.yaml'),
      JSON.stringify(serverConfig(topology, process, endpoint, dynamicConfigFile), null, 2),
    );
    supervisor.start({
      name: `temporal-${process.name}`,
      command: tools.server,
      args: serverArgs(join(dir, process.name), process.service),
      logFile: join(dir, `${process.name}.log`),
    });
  }
  mkdirSync(join(dir, 'ui', 'config'), { recursive: true });
  writeFileSync(join(dir, 'ui', 'config', 'development.yaml'), JSON.stringify(uiConfig(topology, namespace), null, 2));
  supervisor.start({
    name: 'temporal-ui',
    command: tools.uiServer,
    args: ['--root', join(dir, 'ui'), '--config', 'config', '--env', 'development', 'start'],
    logFile: join(dir, 'ui.log'),
  });
  step(`starting the Temporal cluster: ${topology.processes.map((p) => p.name).join(', ')} (logs in ${dir})`);
  const address = frontendAddress(topology);
  const client = await connectTemporal({ address, namespace }, 60_000);
  try {
    await waitFor('the Temporal cluster', 120_000, async () => {
      await client.workflowService.getSystemInfo({});
      return true;
    });
    if (await ensureNamespace(client, namespace, retentionDays))
      step(`registered the namespace ${namespace} (run history kept ${retentionDays} days)`);
    // A new namespace reaches every service's cache within seconds; until then it may answer "not found".
    await waitFor(`the namespace ${namespace}`, 60_000, async () => {
      const added = await ensureSearchAttributes(client, namespace);
      if (added.length) step(`added the search attributes ${added.join(', ')}`);
      return true;
    });
  } finally {
    await client.connection.close();
  }
  step('the Temporal cluster is ready');
  return address;
}
