/**
 * Builds the Temporal cluster's binaries (server, SQL tool, Web UI server) into `.tools/bin` when they are missing:
 * part of `npm test`'s install step (scripts/ensure-tools.mjs), since the reliability suite runs a cluster.
 */
import { ensureClusterTools } from '../launcher/cluster/tools.js';
import { loadTopology } from '../launcher/cluster/topology.js';

const topology = loadTopology();
ensureClusterTools({ server: topology.serverVersion, ui: topology.ui.version }, (message) => console.error(`[setup] ${message}`));
