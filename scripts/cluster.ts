/**
 * `npm run cluster`: agentry on a Temporal cluster of its own (README, Scaling out): the Temporal server and its SQL
 * tool built once into `.tools/bin`, the cluster's databases created and migrated on the configured PostgreSQL, one
 * server process per entry of `cluster/cluster.json` (frontend, two history, matching, internal worker), agentry's
 * namespace and search attributes registered, the Temporal Web UI, then the API, two runs workers and a turns
 * worker against it.
 * Ctrl-C stops all of it; a second start reuses the databases.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connectTemporal } from '../lib/temporal.js';
import { projectRoot } from '../lib/temporal-cli.js';
import { ensureClusterTools } from '../lib/cluster/tools.js';
import { ensureTemporalDatabase } from '../lib/cluster/schema.js';
import { ensureNamespace, ensureSearchAttributes } from '../lib/cluster/namespace.js';
import { dynamicConfig, frontendAddress, loadTopology, postgresEndpoint, serverConfig, uiConfig } from '../lib/cluster/topology.js';
import { launch, type Launch } from './launcher.js';
import { waitFor } from './supervisor.js';

const topology = loadTopology();
process.env.TEMPORAL_ADDRESS ||= frontendAddress(topology);
process.env.TEMPORAL_UI_URL ||= `http://127.0.0.1:${topology.ui.port}`;

async function startCluster({ config, supervisor, step }: Launch): Promise<void> {
  const tools = ensureClusterTools({ server: topology.serverVersion, ui: topology.ui.version }, step);
  const endpoint = postgresEndpoint(config.databaseUrl);
  for (const [database, kind] of [
    [topology.databases.default, 'temporal'],
    [topology.databases.visibility, 'visibility'],
  ] as const) {
    const created = await ensureTemporalDatabase(tools, endpoint, config.databaseUrl, database, kind);
    step(`${created ? 'created' : 'using'} the Temporal database ${database} (schema up to date)`);
  }
  const dir = resolve(projectRoot, config.dataDir, 'cluster');
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
      args: [
        '--root',
        join(dir, process.name),
        '--config',
        'config',
        '--env',
        'development',
        '--allow-no-auth',
        'start',
        '--service',
        process.service,
      ],
      logFile: join(dir, `${process.name}.log`),
    });
  }
  mkdirSync(join(dir, 'ui', 'config'), { recursive: true });
  writeFileSync(join(dir, 'ui', 'config', 'development.yaml'), JSON.stringify(uiConfig(topology, config.temporal.namespace), null, 2));
  supervisor.start({
    name: 'temporal-ui',
    command: tools.uiServer,
    args: ['--root', join(dir, 'ui'), '--config', 'config', '--env', 'development', 'start'],
    logFile: join(dir, 'ui.log'),
  });
  step(`starting the Temporal cluster: ${topology.processes.map((p) => p.name).join(', ')} (logs in ${config.dataDir}/cluster/)`);
  const client = await connectTemporal(config.temporal, 60_000);
  try {
    await waitFor('the Temporal cluster', 120_000, async () => {
      await client.workflowService.getSystemInfo({});
      return true;
    });
    const { namespace } = config.temporal;
    if (await ensureNamespace(client, namespace, config.runHistoryRetentionDays))
      step(`registered the namespace ${namespace} (run history kept ${config.runHistoryRetentionDays} days)`);
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
}

process.exitCode = await launch({ startTemporal: startCluster, runsWorkers: 2 });
