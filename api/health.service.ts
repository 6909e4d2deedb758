/** Reachability of the database, Temporal and (on request) a worker, for `GET /healthz`. */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { HeartbeatResult } from '../db/automations/worker-heartbeats.js';
import type { AiProvider } from '../integrations/ai/ai-provider.js';

export interface ProbeResult {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

export interface HealthReport {
  ok: boolean;
  database: ProbeResult;
  temporal: ProbeResult & { namespace: string };
  worker?: ProbeResult & { identity?: string; taskQueue: string; workflowId: string };
  /**
   * The AI gateway's provider: `not configured` without AI_BASE_URL, else `up` or `down`. It does not change `ok`:
   * without AI the API and every node without AI still work, so a load balancer should keep the process.
   */
  ai: { status: 'not configured' } | (ProbeResult & { status: 'up' | 'down' });
}

export interface HealthDeps {
  getEm: () => EntityManager;
  temporal: Client;
  taskQueue: string;
  timeoutMs: number;
  ai: AiProvider | null;
}

async function probe<T>(timeoutMs: number, run: () => Promise<T>): Promise<ProbeResult & { value?: T }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const value = await Promise.race([run(), timeout]);
    return { ok: true, latencyMs: Math.round(performance.now() - started), value };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export async function checkHealth(deps: HealthDeps, { worker = false } = {}): Promise<HealthReport> {
  const { temporal, timeoutMs } = deps;
  const namespace = temporal.options.namespace;
  const [database, temporalProbe, aiProbe] = await Promise.all([
    probe(timeoutMs, () => deps.getEm().getConnection().execute('select 1')),
    probe(timeoutMs, () => temporal.withDeadline(Date.now() + timeoutMs, () => temporal.workflowService.describeNamespace({ namespace }))),
    deps.ai ? probe(timeoutMs, () => deps.ai!.ping(AbortSignal.timeout(timeoutMs))) : undefined,
  ]);
  const report: HealthReport = {
    ok: database.ok && temporalProbe.ok,
    database: { ok: database.ok, latencyMs: database.latencyMs, ...(database.error && { error: database.error }) },
    temporal: { ok: temporalProbe.ok, latencyMs: temporalProbe.latencyMs, namespace, ...(temporalProbe.error && { error: temporalProbe.error }) },
    ai: aiProbe
      ? { status: aiProbe.ok ? 'up' : 'down', ok: aiProbe.ok, latencyMs: aiProbe.latencyMs, ...(aiProbe.error && { error: aiProbe.error }) }
      : { status: 'not configured' },
  };
  if (worker) {
    const workflowId = `health-check:${randomUUID()}`;
    const run = await probe(
      timeoutMs * 2,
      () =>
        temporal.workflow.execute('checkWorkerHealth', {
          taskQueue: deps.taskQueue,
          workflowId,
          workflowExecutionTimeout: timeoutMs * 2,
        }) as Promise<HeartbeatResult>,
    );
    report.worker = {
      ok: run.ok,
      latencyMs: run.latencyMs,
      taskQueue: deps.taskQueue,
      workflowId,
      ...(run.value && { identity: run.value.identity }),
      ...(run.error && { error: run.error }),
    };
    report.ok &&= run.ok;
  }
  return report;
}
