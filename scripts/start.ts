/**
 * `npm start`: the whole platform on one machine (launcher/launcher.ts), with the embedded Temporal dev server on its
 * SQLite file unless TEMPORAL_ADDRESS points at a Temporal server of your own.
 */
import { mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ensureSettingsKeyFile } from '../launcher/settings-key.js';
import { connectTemporal } from '../integrations/temporal/client.js';
import { ensureRunRetention } from '../launcher/run-retention.js';
import { devServerArgs, projectRoot, temporalCliPath } from '../launcher/temporal-cli.js';
import { launch, portAnswers, type Launch } from '../launcher/launcher.js';
import { waitFor } from '../launcher/supervisor.js';

async function startTemporal({ config, supervisor, step }: Launch): Promise<void> {
  const [host, portText] = config.temporal.address.split(':') as [string, string];
  const port = Number(portText);
  if (!config.temporal.embedded) {
    step(`using the Temporal cluster at ${config.temporal.address}`);
  } else if (await portAnswers(host, port)) {
    step(`something already listens on ${config.temporal.address}; using it as the Temporal server`);
  } else {
    const dataDir = resolve(projectRoot, config.dataDir);
    mkdirSync(dataDir, { recursive: true });
    const uiPort = Number(new URL(config.temporal.uiUrl).port);
    supervisor.start({
      name: 'temporal',
      command: temporalCliPath(),
      args: devServerArgs({ ip: host, port, uiPort, namespace: config.temporal.namespace, dbFilename: join(dataDir, 'temporal.db') }),
      logFile: join(dataDir, 'temporal.log'),
    });
    step(`starting the Temporal dev server on ${config.temporal.address} (state in ${config.dataDir}/temporal.db)`);
  }
  const client = await connectTemporal(config.temporal, 30_000);
  try {
    await waitFor('Temporal', 60_000, async () => {
      await client.workflowService.describeNamespace({ namespace: config.temporal.namespace });
      return true;
    });
    // The embedded server keeps run history (run logs) for RUN_HISTORY_RETENTION_DAYS; a cluster's operators set it.
    const days = config.runHistoryRetentionDays;
    if (config.temporal.embedded && (await ensureRunRetention(client, config.temporal.namespace, days)))
      step(`run history is kept ${days} days (RUN_HISTORY_RETENTION_DAYS)`);
  } finally {
    await client.connection.close();
  }
  step('Temporal is ready');
}

// On a laptop, automations call the services running beside them (http://127.0.0.1:8080/…): npm start lets calls to
// users' URLs reach private addresses unless told otherwise, and says so in its summary. npm run cluster and the
// compose file keep the default, which refuses them.
if (!process.env.OUTBOUND_ALLOW_PRIVATE?.trim()) {
  process.env.OUTBOUND_ALLOW_PRIVATE = 'true';
  console.log("npm start allows calls to users' URLs to reach private addresses (OUTBOUND_ALLOW_PRIVATE=false refuses them)");
}

// Stored secrets (messaging tokens, Meta app secrets, widget identity secrets) are sealed with SETTINGS_ENCRYPTION_KEY:
// on a laptop npm start makes one once, in the data folder, and gives it to the API, the workers and the admin CLI.
let settingsKeyFile: string | null = null;
if (!process.env.SETTINGS_ENCRYPTION_KEY?.trim()) {
  const file = ensureSettingsKeyFile(process.env.AGENTRY_DATA_DIR || '.data');
  process.env.SETTINGS_ENCRYPTION_KEY = file.key;
  settingsKeyFile = relative(projectRoot, file.path) || file.path;
  if (file.created) console.log(`npm start created the settings key ${settingsKeyFile} (mode 0600): back it up with the database`);
}

process.exitCode = await launch({ startTemporal, settingsKeyFile });
