/**
 * The soak (issue 42): the scaled-out platform (platform.ts) under a steady mixed workload (workload.ts) while a fault
 * schedule kills its processes (faults.ts); afterwards a checker reads what happened (checker.ts), a probe measures a
 * limit across the API processes (limit-probe.ts), and the processes' memory and descriptors are judged
 * (resources.ts). `runSoak` answers the checks and the printed report.
 */
import { percentile } from '../../bench/bench-processes.js';
import { check, type Check } from './checker.js';
import { SoakClient } from './client.js';
import { runFaults, type Fault } from './faults.js';
import { probeKeyLimit } from './limit-probe.js';
import { AGENTRY_PROCESSES, startSoakPlatform, type AgentryProcess } from './platform.js';
import { ResourceSampler } from './resources.js';
import { startWorkload } from './workload.js';

export interface SoakOptions {
  /** Length of the workload, warm-up and calm end included. */
  minutes: number;
  /** Between two kills. */
  killEverySeconds: number;
  /** Multiplies the workload's rates. */
  rate: number;
  /** The limit check counts (it passes only with limits shared across API processes). */
  sharedLimits: boolean;
  /** Widget streams resume with `Last-Event-ID` alone (it passes only with an API that reads the header). */
  resumeByHeader: boolean;
  /** Processes never killed, so that some live through the whole run and their memory can be judged. */
  spared: AgentryProcess[];
  /** The platform's databases are on a PostgreSQL server of the soak's own, which it restarts once (else: cut). */
  ownPostgres: boolean;
}

/**
 * SOAK_MINUTES, SOAK_KILL_EVERY_SECONDS, SOAK_RATE, SOAK_SPARE (comma-separated); SOAK_SHARED_LIMITS=0 and SOAK_RESUME=after
 * for an API from before limits were shared and streams read `Last-Event-ID`; SOAK_POSTGRES=shared for the tests'
 * server instead of one of the soak's own (a machine without PostgreSQL's server binaries).
 */
export function soakOptions(env: NodeJS.ProcessEnv = process.env, minutes = 2): SoakOptions {
  const spared = (env.SOAK_SPARE ?? 'api-2,runs-2,turns-2').split(',').filter(Boolean) as AgentryProcess[];
  for (const name of spared) if (!AGENTRY_PROCESSES.includes(name)) throw new Error(`SOAK_SPARE: no process named ${name}`);
  return {
    minutes: Number(env.SOAK_MINUTES ?? minutes),
    killEverySeconds: Number(env.SOAK_KILL_EVERY_SECONDS ?? 6),
    rate: Number(env.SOAK_RATE ?? 1),
    sharedLimits: env.SOAK_SHARED_LIMITS !== '0',
    resumeByHeader: env.SOAK_RESUME !== 'after',
    spared,
    ownPostgres: env.SOAK_POSTGRES !== 'shared',
  };
}

export interface SoakResult {
  checks: (Check & { asserted: boolean })[];
  report: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

export async function runSoak(options: SoakOptions, log: (line: string) => void = console.log): Promise<SoakResult> {
  const total = options.minutes * 60_000;
  const warmUp = Math.max(10_000, total * 0.1);
  const calm = Math.max(10_000, total * 0.1);
  log(`[soak] starting the platform (Temporal cluster, 2 APIs behind a proxy, 2 run and 2 turn workers)`);
  const platform = await startSoakPlatform({ ownPostgres: options.ownPostgres });
  // The supervised processes run in process groups of their own: Ctrl-C reaches only this one, which stops them.
  const interrupted = () => void platform.close().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const phases: { name: string; at: number }[] = [];
    const phase = (name: string) => {
      phases.push({ name, at: Date.now() });
      log(`[soak] ${new Date().toISOString()} ${name}`);
    };
    const client = new SoakClient(platform.proxy.origin);
    const watched = [...AGENTRY_PROCESSES, ...platform.temporalProcesses];
    const sampler = new ResourceSampler(watched, platform.pid);
    sampler.start();
    phase('warm-up');
    const began = Date.now();
    const workload = await startWorkload(platform, client, options);
    await sleep(warmUp - (Date.now() - began));
    const faults: Fault[] = await runFaults(platform, {
      everyMs: options.killEverySeconds * 1000,
      durationMs: total - warmUp - calm,
      targets: AGENTRY_PROCESSES.filter((name) => !options.spared.includes(name)),
      temporalDownMs: 10_000,
      postgresDownMs: 5_000,
      phase,
    });
    phase('calm');
    await sleep(Math.max(0, began + total - Date.now()));
    phase('drain');
    const [stoppedAt] = await Promise.all([workload.stop().then(() => Date.now()), platform.ready()]);
    phase('limit probe');
    const limit = await probeKeyLimit(platform);
    phase('check');
    const checks: SoakResult['checks'] = (await check(platform, client, workload, faults, began)).map((c) => ({ ...c, asserted: true }));
    for (const visitor of workload.ledger.widget) await visitor.close();
    if (!options.resumeByHeader) {
      const streams = checks.find((c) => c.name.startsWith('widget streams'))!;
      streams.detail += ' (resumed with ?after= as well as Last-Event-ID: SOAK_RESUME=after)';
    }
    sampler.stop();
    checks.push({
      name: `a per-key limit held across both API processes within 10 %`,
      ok: Math.abs(limit.excess) <= 0.1,
      asserted: options.sharedLimits,
      detail:
        `${limit.accepted} of ${limit.sent} requests let through in ${limit.seconds.toFixed(1)} s where the limit allows ${limit.allowed.toFixed(0)} ` +
        `(${(limit.excess * 100).toFixed(0)} %); ${limit.refused} refused, ${limit.other} other${options.sharedLimits ? '' : ' (not asserted: SOAK_SHARED_LIMITS=0)'}`,
    });
    const levels = sampler.levelling(began + warmUp, stoppedAt);
    // The Temporal server's history processes grew steadily through a 10-minute soak (about 5 MiB a minute each,
    // descriptors flat), as caches of workflow state do while they fill: they are shown, only agentry's are judged.
    const judged = levels.filter((l) => !l.process.startsWith('temporal-'));
    const growing = levels.filter((l) => !l.ok).map((l) => `${l.process}${l.process.startsWith('temporal-') ? ' (not asserted)' : ''}`);
    checks.push({
      name: "agentry's RSS and open descriptors level off after warm-up",
      ok: judged.every((l) => l.ok) && judged.length > 0,
      asserted: true,
      detail: `${judged.length} agentry processes lived through the run (and ${levels.length - judged.length} Temporal ones); growing: ${growing.join(', ') || 'none'}`,
    });
    const unanswered = client.outcomes.filter((o) => o.status === 0 || o.status >= 500);
    checks.push({
      name: 'every request was answered, none with a 5xx',
      ok: unanswered.length === 0,
      asserted: true,
      detail: `${client.outcomes.length} requests; ${unanswered.length} unanswered or 5xx ${JSON.stringify(unanswered.slice(0, 5).map((o) => `${o.op} ${o.status}`))}`,
    });
    const report = [
      `Soak: ${options.minutes} min of workload (rate ×${options.rate}), a kill every ${options.killEverySeconds} s (spared: ${options.spared.join(', ') || 'none'})`,
      `Faults (${faults.length}):`,
      ...faults.map((f) => `  +${seconds(f.at - began)} ${f.what}`),
      `Restarts by the supervisors: ${platform.events.filter((e) => e.includes(' restarted ')).length} agentry, ${platform.cluster.events.filter((e) => e.includes(' restarted ')).length} Temporal`,
      `Proxy: ${[...platform.proxy.stats.answered].map(([port, n]) => `${n} answered by :${port}`).join(', ')}, ${platform.proxy.stats.badGateway} answered 502`,
      `Retried attempts: ${[...client.retries].map(([cause, n]) => `${n} ${cause}`).join(', ') || 'none'}`,
      'Requests and latency (first try to final answer), by phase:',
      ...latencyTable(client.outcomes, phases),
      'Resources (highest in the first half after warm-up → end of the run):',
      ...levels.map(
        (l) =>
          `  ${l.ok ? ' ' : '!'} ${l.process.padEnd(26)} RSS ${l.rss.firstHighMiB.toFixed(0)} → ${l.rss.endMiB.toFixed(0)} MiB (${(l.rss.growth * 100).toFixed(1)} %), ` +
          `fds ${l.fds.firstHigh} → ${l.fds.end}${l.ok ? '' : `; over the run: fds ${l.series.fds.join(' ')}, RSS ${l.series.rssMiB.join(' ')} MiB`}`,
      ),
      'Checks:',
      ...checks.map((c) => `  ${c.ok ? 'ok  ' : c.asserted ? 'FAIL' : 'off '} ${c.name}: ${c.detail}`),
    ].join('\n');
    return { checks, report };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await platform.close();
  }
}

function latencyTable(outcomes: SoakClient['outcomes'], phases: { name: string; at: number }[]): string[] {
  const phaseOf = (at: number) => [...phases].reverse().find((p) => p.at <= at)?.name ?? 'setup';
  const groups = new Map<string, { ms: number[]; statuses: Map<number, number> }>();
  for (const o of outcomes) {
    if (o.op === 'setup' || o.op === 'check') continue;
    const key = `${phaseOf(o.startedAt)}|${o.op}`;
    const group = groups.get(key) ?? { ms: [], statuses: new Map<number, number>() };
    group.ms.push(o.ms);
    group.statuses.set(o.status, (group.statuses.get(o.status) ?? 0) + 1);
    groups.set(key, group);
  }
  return [...groups].map(([key, { ms, statuses }]) => {
    const [name, op] = key.split('|') as [string, string];
    const answers = [...statuses].map(([status, n]) => `${n}×${status}`).join(' ');
    return `  ${name.padEnd(26)} ${op.padEnd(20)} ${String(ms.length).padStart(5)}  p50 ${String(percentile(ms, 50)).padStart(6)} ms  p99 ${String(percentile(ms, 99)).padStart(6)} ms  ${answers}`;
  });
}
