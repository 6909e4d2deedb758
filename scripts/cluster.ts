/**
 * `npm run cluster`: agentry on a Temporal cluster of its own (README, "A Temporal cluster on PostgreSQL"): the
 * cluster of `launcher/cluster/cluster.json` (launcher/cluster/start-cluster.ts), then the API, two runs workers and a turns worker
 * against it. Ctrl-C stops all of it; a second start reuses the databases.
 */
import { resolve } from 'node:path';
import { projectRoot } from '../launcher/temporal-cli.js';
import { startTemporalCluster } from '../launcher/cluster/start-cluster.js';
import { frontendAddress, loadTopology } from '../launcher/cluster/topology.js';
import { launch } from '../launcher/launcher.js';

const topology = loadTopology();
process.env.TEMPORAL_ADDRESS ||= frontendAddress(topology);
process.env.TEMPORAL_UI_URL ||= `http://127.0.0.1:${topology.ui.port}`;

process.exitCode = await launch({
  runsWorkers: 2,
  startTemporal: async ({ config, supervisor, step }) => {
    await startTemporalCluster({
      topology,
      databaseUrl: config.databaseUrl,
      dir: resolve(projectRoot, config.dataDir, 'cluster'),
      namespace: config.temporal.namespace,
      retentionDays: config.runHistoryRetentionDays,
      supervisor,
      step,
    });
  },
});
