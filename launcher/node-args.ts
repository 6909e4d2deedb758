import { fileURLToPath } from 'node:url';

/** The preload that leaves the SDK's per-promise stack traces out of a worker's workflow threads (see the file). */
const workflowThreads = fileURLToPath(new URL('../worker/workflow-threads.cjs', import.meta.url));

/**
 * Node's arguments for an agentry process run from source: TypeScript through tsx, and for the worker the preload of
 * its workflow threads. `npm run worker` (package.json) spells out the same.
 */
export function nodeArgs(entry: string): string[] {
  const preload = entry === 'worker/main.ts' ? ['--require', workflowThreads] : [];
  return ['--import', 'tsx', ...preload, entry];
}
