/** Child processes of the benchmarks: each prints a line when ready; all are stopped with SIGTERM at the end. */
import { spawn, type ChildProcess } from 'node:child_process';
import { nodeArgs } from '../../launcher/node-args.js';

const children: ChildProcess[] = [];

/**
 * Starts `node --import tsx <script>` (and the worker's preload: launcher/node-args.ts) with `env` and resolves with
 * the first output line matching `ready` (and the child's pid). BENCH_CPU_PROF=<folder> writes a CPU profile of every
 * child process there when it exits; `env.BENCH_QUERY_COUNTS=<folder>` counts the child's PostgreSQL statements
 * (test/bench/query-counter.mjs). `cwd`: another checkout of the project (a baseline measured in the same sitting).
 */
export function startProcess(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  onLine?: (line: string) => void,
  cwd?: string,
): Promise<RegExpExecArray & { pid: number }> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const counter = env.BENCH_QUERY_COUNTS ? ['--import', './test/bench/query-counter.mjs'] : [];
  const [importFlag, tsx, ...rest] = nodeArgs(script);
  const child = spawn(process.execPath, [...profile, importFlag, tsx, ...counter, ...rest], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let rest = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = ready.exec(chunk.toString());
      if (match) resolve(Object.assign(match, { pid: child.pid! }));
      if (!onLine) return;
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop()!;
      for (const line of lines) onLine(line);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export function stopProcesses(): void {
  for (const child of children) child.kill('SIGTERM');
}

/** Runs a benchmark's `main`; a failure is printed, the child processes stopped and the process exits with 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error) => {
    console.error(error);
    stopProcesses();
    process.exit(1);
  });
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A JSON client of the API at `port` with `key`; any status from 300 up throws with the answer. */
export function benchApi(port: number | string, key: string) {
  const base = `http://127.0.0.1:${port}/public/v1`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}
