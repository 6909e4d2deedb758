/**
 * The settings key of a checkout: `npm start` seals stored secrets (messaging tokens, Meta app secrets, agents' widget
 * identity secrets) with SETTINGS_ENCRYPTION_KEY, and when none is set it creates one, once, in the data folder
 * (`settings.key`, readable by its owner only) and uses it for the API, the workers and the admin command line started
 * from the same checkout. Losing the file loses those secrets (they must be entered again): it is backed up with the
 * database. `npm run api`, `npm run worker`, the cluster and compose configurations never create one.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SecretBox } from '../lib/secret-box.js';
import { projectRoot } from './temporal-cli.js';

export const SETTINGS_KEY_FILE = 'settings.key';

/** The key file of the data folder `dataDir` (relative to the checkout). */
export const settingsKeyPath = (dataDir: string) => join(resolve(projectRoot, dataDir), SETTINGS_KEY_FILE);

/** A new key: 32 random bytes as 64 hex digits. */
export const newSettingsKey = () => randomBytes(32).toString('hex');

/** The key in `path`, or null when there is no such file; throws when the file holds no key. */
export function readSettingsKeyFile(path: string): string | null {
  if (!existsSync(path)) return null;
  const key = readFileSync(path, 'utf8').trim();
  if (!SecretBox.fromKey(key)) throw new Error(`${path} does not hold a settings key (64 hex digits or base64 of 32 bytes)`);
  return key;
}

/** Writes `key` to `path` readable by its owner only, replacing the file in one step (a crash leaves old or new). */
export function writeSettingsKeyFile(path: string, key: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const next = `${path}.next`;
  rmSync(next, { force: true });
  writeFileSync(next, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(next, 0o600);
  renameSync(next, path);
}

/** The data folder's key, created now when there is none; `created` says which. */
export function ensureSettingsKeyFile(dataDir: string): { key: string; path: string; created: boolean } {
  const path = settingsKeyPath(dataDir);
  const existing = readSettingsKeyFile(path);
  if (existing) return { key: existing, path, created: false };
  const key = newSettingsKey();
  writeSettingsKeyFile(path, key);
  return { key, path, created: true };
}

/**
 * `env` with SETTINGS_ENCRYPTION_KEY taken from the data folder's key file when it is unset and the file exists (the
 * admin command line of a checkout that `npm start` runs); where the key came from, for messages.
 */
export function withSettingsKeyFile(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; keyFile: string | null } {
  if (env.SETTINGS_ENCRYPTION_KEY?.trim()) return { env, keyFile: null };
  const path = settingsKeyPath(env.AGENTRY_DATA_DIR || '.data');
  const key = readSettingsKeyFile(path);
  return key ? { env: { ...env, SETTINGS_ENCRYPTION_KEY: key }, keyFile: path } : { env, keyFile: null };
}
