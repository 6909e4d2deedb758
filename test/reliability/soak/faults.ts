/**
 * The soak's fault schedule: every `everyMs` a random API or worker process is killed with SIGKILL (its supervisor
 * starts it again); once, a Temporal server process is stopped and started again; once, PostgreSQL is restarted:
 * the soak's own server crashes (`pg_ctl stop -m immediate`, so the next start recovers from its WAL) and starts
 * again after `postgresDownMs`. A soak on the tests' shared server (SOAK_POSTGRES=shared) cannot restart it without
 * cutting other work: there every connection to the soak's databases is cut with `pg_terminate_backend` instead.
 */
import pg from 'pg';
import type { AgentryProcess, SoakPlatform } from './platform.js';

export interface Fault {
  at: number;
  what: string;
}

export interface FaultPlan {
  /** Between two kills. */
  everyMs: number;
  /** How long the schedule runs. */
  durationMs: number;
  /** Processes the kills choose from. */
  targets: AgentryProcess[];
  /** How long the Temporal server process stays stopped. */
  temporalDownMs: number;
  /** How long the soak's own PostgreSQL server stays down. */
  postgresDownMs: number;
  /** Called when a phase of the run starts (`temporal process stopped`, `postgres restarted`, `faults`). */
  phase: (name: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Cuts every connection to the soak's databases; answers how many were cut. */
export async function cutConnections(platform: SoakPlatform): Promise<number> {
  const server = new URL(platform.databaseUrl);
  const names = [server.pathname.slice(1), ...Object.values(platform.cluster.topology.databases)];
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const cut = await client.query(
      'select count(*) filter (where pg_terminate_backend(pid)) as n from pg_stat_activity where datname = any($1) and pid <> pg_backend_pid()',
      [names],
    );
    return Number(cut.rows[0].n);
  } finally {
    await client.end();
  }
}

/** Runs the schedule; answers the faults made, in order. */
export async function runFaults(platform: SoakPlatform, plan: FaultPlan): Promise<Fault[]> {
  const faults: Fault[] = [];
  const note = (what: string) => faults.push({ at: Date.now(), what });
  const end = Date.now() + plan.durationMs;
  const temporalAt = Date.now() + plan.durationMs / 3;
  const cutAt = Date.now() + (2 * plan.durationMs) / 3;
  let temporalDone = false;
  let cutDone = false;
  plan.phase('faults');
  while (Date.now() + plan.everyMs <= end) {
    await sleep(plan.everyMs);
    const running = plan.targets.filter((name) => platform.pid(name));
    if (running.length) {
      const victim = pick(running);
      process.kill(platform.pid(victim)!, 'SIGKILL');
      note(`SIGKILL ${victim}`);
    }
    if (!temporalDone && Date.now() >= temporalAt) {
      temporalDone = true;
      const service = pick(platform.temporalProcesses);
      plan.phase('temporal process stopped');
      await platform.cluster.supervisor.pause(service);
      note(`stopped ${service}`);
      await sleep(plan.temporalDownMs);
      platform.cluster.supervisor.resume(service);
      note(`started ${service} again`);
      plan.phase('faults');
    }
    if (!cutDone && Date.now() >= cutAt) {
      cutDone = true;
      const server = platform.postgres;
      if (server) {
        plan.phase('postgres restarted');
        await server.stop({ mode: 'immediate' });
        note('PostgreSQL crashed (pg_ctl stop -m immediate)');
        await sleep(plan.postgresDownMs);
        await server.start();
        note('PostgreSQL started again');
      } else {
        plan.phase('connections cut');
        note(`pg_terminate_backend: ${await cutConnections(platform)} connections of the soak's databases cut`);
      }
      await sleep(plan.everyMs);
      plan.phase('faults');
    }
  }
  return faults;
}
