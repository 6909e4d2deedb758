/**
 * A PostgreSQL server of a test's own (`initdb` and `pg_ctl` of the installed PostgreSQL), in a temporary data
 * directory, on a free port, with trust authentication, so the test may stop and start it under load. PostgreSQL
 * refuses to run as root: as root, its commands run as the `postgres` OS user, who then owns the directory.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const INSTALLS = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin directory, or a message saying none was found. */
function binDir(): string {
  const versions = existsSync(INSTALLS) ? readdirSync(INSTALLS).filter((v) => existsSync(join(INSTALLS, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server binaries (initdb, pg_ctl) under ${INSTALLS}/*/bin: install the postgresql package`);
  return join(INSTALLS, newest, 'bin');
}

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** Starts the server (unless it runs) and waits until it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop -m <mode>`: `immediate` is a crash (no checkpoint; the next start recovers from the WAL). */
  stop(options?: { mode?: 'smart' | 'fast' | 'immediate' }): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server (when running) and removes its data directory. */
  destroy(): Promise<void>;
}

/** Creates the cluster and starts its server (`maxConnections`: its max_connections, 100 unless given). */
export async function startPrivatePostgres({ maxConnections = 100 }: { maxConnections?: number } = {}): Promise<PrivatePostgres> {
  const bin = binDir();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agentry-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
    chownSync(dir, ids('-u'), ids('-g'));
  }
  // Asynchronous, so that an API in this process keeps answering while the server stops and starts.
  const run = async (tool: string, args: string[]) => {
    const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    try {
      await promisify(execFile)(command, argv, { timeout: 60_000 });
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${tool} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
    }
  };
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off -c max_connections=${maxConnections}`;
  let running = false;
  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      if (running) return;
      const log = join(dir, 'server.log');
      await run('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', log, '-o', options]).catch((error: Error) => {
        throw new Error(`${error.message}\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : ''}`);
      });
      running = true;
    },
    async stop({ mode = 'fast' } = {}) {
      if (!running) return;
      await run('pg_ctl', ['stop', '-w', '-D', data, '-m', mode]);
      running = false;
    },
    async restart() {
      await server.stop();
      await server.start();
    },
    async destroy() {
      await server.stop({ mode: 'immediate' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
