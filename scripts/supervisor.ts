/** Child processes of the launcher: started together, stopped together, and none outlives a failure of another. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface ServiceSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** File that receives the output; the launcher's own terminal when absent (prefixed with the name). */
  logFile?: string;
}

export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private stopping = false;
  /** Resolves with the exit code the launcher should end with. */
  readonly done: Promise<number>;
  private finish!: (code: number) => void;

  constructor(
    private readonly cwd: string,
    /** Where the launcher reports a service that died (its logger's error level). */
    private readonly logError: (message: string) => void,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  start(spec: ServiceSpec): ChildProcess {
    const child = spawn(spec.command, spec.args, {
      cwd: this.cwd,
      env: spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Own process group: Ctrl-C reaches only the launcher, which stops the services in order.
      detached: true,
    });
    if (spec.logFile) {
      const log = createWriteStream(spec.logFile, { flags: 'a' });
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
    } else {
      const prefix = (chunk: Buffer) => chunk.toString().replace(/^(?=.)/gm, `[${spec.name}] `);
      child.stdout!.on('data', (chunk: Buffer) => process.stdout.write(prefix(chunk)));
      child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
    }
    this.children.set(spec.name, child);
    child.once('exit', (code, signal) => {
      this.children.delete(spec.name);
      if (!this.stopping) {
        this.logError(`${spec.name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything`);
        void this.stop(1);
      } else if (this.children.size === 0) {
        this.finish(this.exitCode);
      }
    });
    return child;
  }

  private exitCode = 0;

  /** Stops services in reverse start order: API and worker first, then Temporal. */
  async stop(exitCode = 0): Promise<number> {
    if (this.stopping) return this.done;
    this.stopping = true;
    this.exitCode = exitCode;
    if (this.children.size === 0) this.finish(exitCode);
    const order = [...this.children.entries()].reverse();
    for (const [, child] of order) {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.done;
  }
}

/** Polls until `check` resolves true or the time is up. */
export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become ready within ${Math.round(timeoutMs / 1000)} s`);
}
