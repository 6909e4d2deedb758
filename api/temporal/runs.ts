/**
 * Manual runs of an automation: one Temporal execution of `runAutomation` on the live snapshot (or the draft). The run
 * waits for admission like every run (worker/outbox-dispatcher.ts): the API writes a MANUAL_RUN outbox event with the
 * run's input and its Temporal workflow id, wakes the dispatchers, and answers 202 with that id; when the run starts
 * within a moment (the usual case, below the bound) the answer also carries its Temporal run id.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Account } from '../../db/accounts/account.entity.js';
import { GraphSnapshot } from '../../db/automations/graph-snapshot.entity.js';
import { OutboxEvent } from '../../db/automations/outbox-event.entity.js';
import type { Automation } from '../../db/automations/automation.entity.js';
import { OUTBOX_CHANNEL } from '../../db/automations/outbox-notifier.js';
import { MANUAL_RUN_EVENT, storedRunPayload, type ManualRunEventPayload } from '../../lib/runtime/queued-runs.js';
import { BadRequestError } from '../../lib/errors.js';
import { ENTRY_NODE_TYPES, nodeFactsOf } from '../../nodes/registry.js';
import { automationRunWorkflowId, runInput, type RunStartRequest } from '../../lib/runtime/run-start.js';

export interface ManualRunRequest {
  payload?: unknown;
  entryNodeId?: string;
  snapshot: 'live' | 'draft';
}

export async function startManualRun(em: EntityManager, temporal: Client, automation: Automation, request: ManualRunRequest) {
  const snapshotId = request.snapshot === 'draft' ? automation.draftSnapshotId : automation.liveSnapshotId;
  if (!snapshotId)
    throw new BadRequestError('The workflow has no live snapshot yet: publish it first, or run the draft with ?snapshot=draft', 'snapshot');
  const snapshot = await em.findOneOrFail(GraphSnapshot, { id: snapshotId });
  const graph = { nodes: snapshot.nodes, edges: snapshot.edges };
  const entry = request.entryNodeId
    ? graph.nodes.find((n) => n.nodeId === request.entryNodeId)
    : (graph.nodes.find((n) => ENTRY_NODE_TYPES.includes(n.type)) ?? graph.nodes[0]);
  if (!entry) {
    throw new BadRequestError(
      request.entryNodeId ? `No node ${request.entryNodeId} in the snapshot` : 'The snapshot has no node to start from',
      'entryNodeId',
    );
  }
  const run: RunStartRequest = {
    accountId: automation.account.id,
    automationId: automation.id,
    snapshotId,
    graph,
    nodeFacts: nodeFactsOf(graph),
    entryNodeId: entry.nodeId,
    triggerPayload: request.payload ?? null,
    trigger: { type: 'MANUAL' },
  };
  const runWorkflowId = automationRunWorkflowId(automation.id, `manual-${randomUUID()}`);
  // Sized here, so a run too large for Temporal is refused (413) now rather than failing in the outbox.
  const payload: ManualRunEventPayload = { runWorkflowId, request: { ...runInput(run), trigger: run.trigger } };
  const event = em.create(OutboxEvent, {
    account: em.getReference(Account, automation.account.id),
    type: MANUAL_RUN_EVENT,
    payload: storedRunPayload(payload),
  });
  await em.flush();
  await em.getKnex().raw(`select pg_notify(?, '')`, [OUTBOX_CHANNEL]);
  return { id: runWorkflowId, runId: await startedRunId(em, temporal, String(event.id), runWorkflowId), snapshotId, entryNodeId: entry.nodeId };
}

/** How long the answer waits for the run to be admitted, to tell its Temporal run id. */
const ADMISSION_WAIT_MS = 1_000;

/** The Temporal run id of the run once its event is dispatched within `ADMISSION_WAIT_MS`, else null (still queued). */
async function startedRunId(em: EntityManager, temporal: Client, eventId: string, runWorkflowId: string): Promise<string | null> {
  const deadline = Date.now() + ADMISSION_WAIT_MS;
  for (let wait = 5; Date.now() < deadline; wait = Math.min(wait * 2, 100)) {
    const event = await em.getKnex().raw(`select dispatched_at from outbox_events where id = ?`, [eventId]);
    if (event.rows[0]?.dispatched_at) {
      try {
        return (await temporal.workflow.getHandle(runWorkflowId).describe()).runId;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return null;
}
