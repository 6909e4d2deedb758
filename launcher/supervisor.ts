/**
 * Child processes of the launcher: started together and stopped together. A child that dies on its own (a worker
 * killed by the kernel, a crashed API or Temporal server) is started again after a backoff while the others keep
 * serving; Ctrl-C stops all of them.
 */
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

export interface RestartPolicy {
  /** Wait before the first restart; doubled for each further crash in a row. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A child that ran this long before it died starts its backoff from the first delay again. */
  healthyAfterMs: number;
}

export const DEFAULT_RESTART: RestartPolicy = { firstDelayMs: 1_000, maxDelayMs: 30_000, healthyAfterMs: 60_000 };

interface Service {
  spec: ServiceSpec;
  child?: ChildProcess;
  /** Crashes in a row (reset once the child has run for `healthyAfterMs`). */
  crashes: number;
  restartTimer?: NodeJS.Timeout;
  /** Stopped on purpose by `pause`: not restarted until `resume`. */
  paused?: boolean;
}

/** SIGTERM, then SIGKILL if the child has not exited within 15 s. */
function terminate(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  return new Promise<void>((resolve) => {
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

export class Supervisor {
  private readonly services = new Map<string, Service>();
  private stopping = false;
  /** Resolves with the exit code the launcher should end with. */
  readonly done: Promise<number>;
  private finish!: (code: number) => void;
  private exitCode = 0;

  constructor(
    private readonly cwd: string,
    private readonly log: {
      /** A service died (the launcher's error level). */
      error: (message: string) => void;
      /** A service started or restarted, with its process id. */
      info: (message: string) => void;
    },
    private readonly restart: RestartPolicy = DEFAULT_RESTART,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  start(spec: ServiceSpec): ChildProcess {
    const service: Service = { spec, crashes: 0 };
    this.services.set(spec.name, service);
    const child = this.spawn(service);
    this.log.info(`${spec.name} started (pid ${child.pid})`);
    return child;
  }

  /** The process id of a running service. */
  pid(name: string): number | undefined {
    return this.services.get(name)?.child?.pid;
  }

  private service(name: string): Service {
    const service = this.services.get(name);
    if (!service) throw new Error(`no service named ${name}`);
    return service;
  }

  /** Stops one service on purpose (an operator's maintenance): it stays stopped until `resume`. */
  async pause(name: string): Promise<void> {
    const service = this.service(name);
    service.paused = true;
    clearTimeout(service.restartTimer);
    if (service.child) await terminate(service.child);
    this.log.info(`${name} stopped`);
  }

  /** Starts a paused service again. */
  resume(name: string): void {
    const service = this.service(name);
    service.paused = false;
    if (service.child || this.stopping) return;
    service.crashes = 0;
    const child = this.spawn(service);
    this.log.info(`${name} started again (pid ${child.pid})`);
  }

  private spawn(service: Service): ChildProcess {
    const { spec } = service;
    const child = spawn(spec.command, spec.args, {
      cwd: this.cwd,
      env: spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Own process group: Ctrl-C reaches only the launcher, which stops the services in order.
      detached: true,
    });
    if (spec.logFile) {
      const log = createWriteStream(spec.logFile, { flags: 'a' });
      // Both streams write to one file, which closes once the child's streams have both ended.
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
      child.once('close', () => log.end());
    } else {
      const prefix = (chunk: Buffer) => chunk.toString().replace(/^(?=.)/gm, `[${spec.name}] `);
      child.stdout!.on('data', (chunk: Buffer) => process.stdout.write(prefix(chunk)));
      child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
    }
    service.child = child;
    const startedAt = Date.now();
    // A command that cannot be spawned at all reports an error and then an exit.
    child.once('error', (error) => this.log.error(`${spec.name} could not start: ${error.message}`));
    child.once('exit', (code, signal) => {
      service.child = undefined;
      if (this.stopping) {
        if (this.running() === 0) this.finish(this.exitCode);
        return;
      }
      if (service.paused) return;
      if (Date.now() - startedAt >= this.restart.healthyAfterMs) service.crashes = 0;
      const delay = Math.min(this.restart.maxDelayMs, this.restart.firstDelayMs * 2 ** service.crashes);
      service.crashes += 1;
      this.log.error(
        `${spec.name} exited unexpectedly (${signal ?? `code ${code}`}); restarting it in ${(delay / 1000).toFixed(0)} s (crash ${service.crashes} in a row), the other services go on`,
      );
      service.restartTimer = setTimeout(() => {
        service.restartTimer = undefined;
        if (this.stopping) return;
        const next = this.spawn(service);
        this.log.info(`${spec.name} restarted (pid ${next.pid})`);
      }, delay);
    });
    return child;
  }

  private running(): number {
    return [...this.services.values()].filter((s) => s.child).length;
  }

  /** Stops services in reverse start order: API and workers first, then Temporal. */
  async stop(exitCode = 0): Promise<number> {
    if (this.stopping) return this.done;
    this.stopping = true;
    this.exitCode = exitCode;
    for (const service of this.services.values()) clearTimeout(service.restartTimer);
    if (this.running() === 0) this.finish(exitCode);
    const order = [...this.services.values()].reverse();
    for (const { child } of order) if (child) await terminate(child);
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
