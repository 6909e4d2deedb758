#!/usr/bin/env node
// Installs what the project needs and is missing, using only Node built-ins (it runs before node_modules
// exists): the npm packages of package-lock.json, the Temporal CLI (a Go module) under .tools/bin and, before
// `npm run test:cluster`, the Temporal cluster binaries of its reliability suites.
// Runs before `npm start`, `npm test`, `npm run test:cluster` and `npm run admin`; when everything is in place it costs milliseconds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

function say(message) {
  if (!quiet) console.error(`[setup] ${message}`);
}

/**
 * Runs a step of the install. `captured`: its output (Go's module downloads, hundreds of lines) is kept and shown only
 * when the step fails, so a test command's output stays the tests' own.
 */
function run(command, args, env = process.env, { captured = false } = {}) {
  const started = Date.now();
  const stdio = captured ? ['ignore', 'pipe', 'pipe'] : quiet ? ['ignore', 'ignore', 'inherit'] : ['ignore', 'inherit', 'inherit'];
  const result = spawnSync(command, args, { cwd: root, env, stdio, maxBuffer: 64 * 2 ** 20 });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (captured) process.stderr.write(`${result.stdout}${result.stderr}`);
    console.error(`[setup] ${command} ${args.join(' ')} failed with exit code ${result.status}`);
    process.exit(result.status ?? 1);
  }
  return Date.now() - started;
}

function ensureNodeModules() {
  const lock = readFileSync(join(root, 'package-lock.json'));
  const digest = createHash('sha256').update(lock).digest('hex');
  const marker = join(root, 'node_modules', '.agentry-lock-sha256');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === digest) return;
  say('installing npm packages (npm ci)...');
  const ms = run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  writeFileSync(marker, digest);
  say(`npm packages installed in ${(ms / 1000).toFixed(1)} s`);
}

function findGo() {
  const candidates = [process.env.GO, ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'go')), '/usr/local/go/bin/go'];
  return candidates.find((path) => path && existsSync(path));
}

export function temporalCliPath() {
  return process.env.TEMPORAL_CLI || join(root, '.tools', 'bin', 'temporal');
}

function ensureTemporalCli() {
  const cli = temporalCliPath();
  if (existsSync(cli)) return;
  if (process.env.TEMPORAL_CLI) {
    console.error(`[setup] TEMPORAL_CLI points at ${cli}, which does not exist`);
    process.exit(1);
  }
  const go = findGo();
  if (!go) {
    console.error('[setup] the Temporal CLI is missing and no Go toolchain was found to build it.');
    console.error(`[setup] install Go, or set TEMPORAL_CLI to a temporal binary, or TEMPORAL_ADDRESS to an existing cluster.`);
    process.exit(1);
  }
  mkdirSync(dirname(cli), { recursive: true });
  say(`building the Temporal CLI with ${go} install ${TEMPORAL_CLI_MODULE} (first time only, takes minutes)...`);
  const ms = run(go, ['install', TEMPORAL_CLI_MODULE], { ...process.env, GOBIN: dirname(cli), CGO_ENABLED: '0' }, { captured: true });
  say(`Temporal CLI built in ${(ms / 1000).toFixed(0)} s: ${cli}`);
}

/** The Temporal server, SQL tool and Web UI server of the cluster tests (launcher/cluster/tools.ts builds them). */
function ensureClusterTools() {
  const bin = join(root, '.tools', 'bin');
  if (['temporal-server', 'temporal-sql-tool', 'temporal-ui-server'].every((name) => existsSync(join(bin, name)))) return;
  say('building the Temporal cluster binaries for the cluster tests (first time only, takes minutes)...');
  const ms = run(process.execPath, ['--import', 'tsx', 'scripts/cluster-tools.ts'], process.env, { captured: true });
  say(`Temporal cluster binaries built in ${(ms / 1000).toFixed(0)} s`);
}

ensureNodeModules();
// The CLI is needed by tests (always) and by `npm start` unless it is pointed at an existing cluster; `npm run
// cluster` builds the Temporal server itself (launcher/cluster/tools.ts).
const lifecycle = process.env.npm_lifecycle_event;
if ((lifecycle !== 'prestart' || !process.env.TEMPORAL_ADDRESS) && lifecycle !== 'preadmin' && lifecycle !== 'precluster') ensureTemporalCli();
// The reliability suite (`npm run test:cluster`) and the soak (`npm run soak`) run a Temporal cluster: its binaries are
// built here, with the rest of the install.
if (lifecycle === 'pretest:cluster' || lifecycle === 'presoak') ensureClusterTools();
