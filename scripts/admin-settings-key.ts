/**
 * `rotate-settings-key`: every sealed secret moves from the settings key in use (SETTINGS_ENCRYPTION_KEY, or the data
 * folder's key file that `npm start` made) to a new one in one transaction (db/sealed-secrets.ts). With the key file,
 * the new key is written beside it first and replaces it only once the database has committed, so that neither a
 * refused rotation nor a crash leaves secrets sealed under a key nobody kept.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { resealSecrets } from '../db/sealed-secrets.js';
import { SecretBox } from '../lib/secret-box.js';
import { newSettingsKey, writeSettingsKeyFile } from '../launcher/settings-key.js';

type Options = Record<string, string | boolean | undefined>;

export const SETTINGS_KEY_USAGE = `
  rotate-settings-key [--new-key KEY|-]        re-seal every stored secret (messaging tokens, Meta app secrets, widget
                                               identity secrets) under a new key (given, - from stdin, or generated),
                                               all or nothing; the data folder's key file is replaced, or the new key is
                                               printed once to set as SETTINGS_ENCRYPTION_KEY; restart the API and workers`;

export interface KeyInUse {
  /** SETTINGS_ENCRYPTION_KEY as this command line reads it (the variable, else the key file); null: none. */
  key: string | null;
  /** The key file it came from; null when it came from the environment. */
  keyFile: string | null;
}

async function newKeyOption(options: Options, usage: (message: string) => Error): Promise<string> {
  let given = typeof options['new-key'] === 'string' ? (options['new-key'] as string) : undefined;
  if (given === '-') {
    given = '';
    for await (const chunk of process.stdin) given += chunk;
  }
  if (given === undefined) return newSettingsKey();
  if (!SecretBox.fromKey(given)) throw usage('--new-key must be 32 bytes: 64 hex digits or base64');
  return given.trim();
}

export async function rotateSettingsKey(em: EntityManager, options: Options, inUse: KeyInUse, usage: (message: string) => Error) {
  if (!inUse.key) throw usage('no settings key to rotate from: SETTINGS_ENCRYPTION_KEY is unset and there is no key file');
  const key = await newKeyOption(options, usage);
  const pending = inUse.keyFile && `${inUse.keyFile}.new`;
  if (pending) {
    rmSync(pending, { force: true });
    writeSettingsKeyFile(pending, key);
  }
  let columns;
  try {
    columns = await resealSecrets(em, SecretBox.fromKey(inUse.key)!, SecretBox.fromKey(key)!);
  } catch (error) {
    if (pending) rmSync(pending, { force: true });
    throw error;
  }
  if (pending && inUse.keyFile) {
    if (existsSync(inUse.keyFile)) renameSync(inUse.keyFile, `${inUse.keyFile}.previous`);
    renameSync(pending, inUse.keyFile);
  }
  const count = columns.reduce((sum, c) => sum + c.count, 0);
  const where = inUse.keyFile
    ? `the new key is in ${inUse.keyFile} (the old one in ${inUse.keyFile}.previous until you remove it)`
    : `set SETTINGS_ENCRYPTION_KEY=${key} on every API and worker process (shown once)`;
  return {
    json: {
      resealed: columns.map(({ table, column, count }) => ({ table, column, count })),
      keyFile: inUse.keyFile,
      ...(inUse.keyFile ? {} : { newKey: key }),
    },
    text: `re-sealed ${count} secret${count === 1 ? '' : 's'}; ${where}; restart the API and the workers`,
  };
}
