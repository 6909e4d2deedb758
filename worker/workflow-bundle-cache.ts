/**
 * The workflow bundle, built once per version of the code and kept on disk: a worker process that starts again
 * (restarted by its supervisor after a crash, one of several started together, a test shard) reads it in
 * milliseconds instead of bundling for tens of seconds. The bundle's name is a digest of every source file a workflow
 * can import (activities/, api/, db/, integrations/, launcher/, lib/, nodes/, worker/, workflows/) and of
 * package-lock.json, so any change of code or dependencies makes a new one; it is written under a temporary name and
 * renamed, so processes bundling at once never read half a file. The folder is node_modules/.cache, where build caches
 * of a checkout live.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE_FOLDERS = ['activities', 'api', 'db', 'integrations', 'launcher', 'lib', 'nodes', 'worker', 'workflows'];
const SOURCE_FILE = /\.(ts|js|cjs|mjs|json)$/;

/** A digest of the sources and the locked dependencies under `root`. */
export function sourceDigest(root: string): string {
  const hash = createHash('sha256').update(readFileSync(join(root, 'package-lock.json')));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry.name)) hash.update(path.slice(root.length)).update('\0').update(readFileSync(path));
    }
  };
  for (const folder of SOURCE_FOLDERS) walk(join(root, folder));
  return hash.digest('hex').slice(0, 32);
}

/** The cached bundle of `digest`, else `build`'s, stored for the next process (older bundles are removed). */
export async function cachedBundle<B extends { code: string }>(root: string, digest: string, build: () => Promise<B>): Promise<B> {
  const dir = join(root, 'node_modules', '.cache', 'agentry-workflow-bundle');
  const file = join(dir, `${digest}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as B;
  } catch {
    // not built yet for this code (or a file cut short by a crash: built again and replaced)
  }
  const bundle = await build();
  try {
    mkdirSync(dir, { recursive: true });
    for (const old of readdirSync(dir)) if (old !== `${digest}.json` && !old.includes('.tmp-')) rmSync(join(dir, old), { force: true });
    const temporary = `${file}.tmp-${process.pid}`;
    writeFileSync(temporary, JSON.stringify(bundle));
    renameSync(temporary, file);
  } catch {
    // a read-only checkout: every process bundles for itself, as without the cache
  }
  return bundle;
}
