/** Reachability of the database, Temporal and (on request) a worker, for `GET /healthz`. */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { HeartbeatResult } from '../activities/heartbeat.activity.js';

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
}

export interface HealthDeps {
  getEm: () => EntityManager;
  temporal: Client;
  taskQueue: string;
  timeoutMs: number;
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
  const [database, temporalProbe] = await Promise.all([
    probe(timeoutMs, () => deps.getEm().getConnection().execute('select 1')),
    probe(timeoutMs, () => temporal.withDeadline(Date.now() + timeoutMs, () => temporal.workflowService.describeNamespace({ namespace }))),
  ]);
  const report: HealthReport = {
    ok: database.ok && temporalProbe.ok,
    database: { ok: database.ok, latencyMs: database.latencyMs, ...(database.error && { error: database.error }) },
    temporal: { ok: temporalProbe.ok, latencyMs: temporalProbe.latencyMs, namespace, ...(temporalProbe.error && { error: temporalProbe.error }) },
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
