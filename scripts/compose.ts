/**
 * `npm run compose`: writes temporal-docker-compose.yml and the files its Temporal containers mount (launcher/cluster/docker/)
 * from launcher/cluster/cluster.json (launcher/cluster/compose-file.ts), and removes mounted files of processes no longer in it.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { projectRoot } from '../launcher/temporal-cli.js';
import { composeFiles, MOUNT_DIR, TEMPLATE } from '../launcher/cluster/compose-file.js';
import { loadTopology } from '../launcher/cluster/topology.js';

const files = composeFiles(loadTopology());
for (const [file, text] of Object.entries(files)) {
  mkdirSync(dirname(join(projectRoot, file)), { recursive: true });
  writeFileSync(join(projectRoot, file), text);
  console.log(`wrote ${file}`);
}
for (const name of readdirSync(join(projectRoot, MOUNT_DIR))) {
  const file = `${MOUNT_DIR}/${name}`;
  if (file in files || file === TEMPLATE) continue;
  rmSync(join(projectRoot, file));
  console.log(`removed ${file}`);
}
