#!/usr/bin/env node
// Installs a Node.js release other than the one running (CI runs the suite a second time on Node.js 24) from the npm
// registry's `node` package into .tools/node<major> (git-ignored; nothing outside the checkout changes), reused when
// present, and prints the folder of its `node` binary to put first on PATH:
//   PATH="$(node scripts/ensure-node.mjs 24):$PATH" npm test
// The `node` package's install script fetches the binary of this platform from the registry (node-<os>-<arch>); the
// binary is run once to prove it arrived. node_modules needs no rebuild: its one native addon, the Temporal SDK's
// core bridge, is built on N-API, which every Node.js release since 10 loads.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The release installed for each major version: pinned, so every CI run tests the same one. */
const RELEASES = { 22: '22.23.3', 24: '24.21.0' };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = process.argv[2];
const version = RELEASES[major];
if (!version) {
  console.error(`usage: node scripts/ensure-node.mjs <major>, one of ${Object.keys(RELEASES).join(', ')}`);
  process.exit(2);
}
const prefix = join(root, '.tools', `node${major}`);
const bin = join(prefix, 'node_modules', 'node', 'bin');
const node = join(bin, process.platform === 'win32' ? 'node.exe' : 'node');

/** The version the binary reports, or undefined when it is missing or does not run. */
function installedVersion() {
  if (!existsSync(node)) return undefined;
  const result = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

if (installedVersion() !== `v${version}`) {
  rmSync(prefix, { recursive: true, force: true });
  console.error(`[setup] installing Node.js ${version} from the npm registry's node package into ${prefix}...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts=false',
    '--loglevel=error',
  ];
  const result = spawnSync(npm, [...args, `node@${version}`], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.error) throw result.error;
  const found = installedVersion();
  if (result.status !== 0 || found !== `v${version}`) {
    console.error(`[setup] Node.js ${version} did not install (npm exit code ${result.status}, ${node} reports ${found ?? 'nothing'})`);
    process.exit(1);
  }
}
console.log(bin);
