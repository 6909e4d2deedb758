/** Manual runs of a workflow: one Temporal execution of `runAutomation` on the live snapshot (or the draft). */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { GraphSnapshot, type Workflow } from '../db/entities/index.js';
import { BadRequestError } from '../lib/errors.js';
import { ENTRY_NODE_TYPES, nodeFactsOf } from '../activities/nodes/registry.js';
import { automationRunId, runInput, runSearchAttributes, type RunStartRequest } from '../lib/runtime/run-start.js';

export interface ManualRunRequest {
  payload?: unknown;
  entryNodeId?: string;
  snapshot: 'live' | 'draft';
}

export async function startManualRun(em: EntityManager, temporal: Client, taskQueue: string, workflow: Workflow, request: ManualRunRequest) {
  const snapshotId = request.snapshot === 'draft' ? workflow.draftSnapshotId : workflow.liveSnapshotId;
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
    accountId: workflow.account.id,
    automationId: workflow.id,
    snapshotId,
    graph,
    nodeFacts: nodeFactsOf(graph),
    entryNodeId: entry.nodeId,
    triggerPayload: request.payload ?? null,
    trigger: { type: 'MANUAL' },
  };
  const handle = await temporal.workflow.start('runAutomation', {
    taskQueue,
    workflowId: automationRunId(workflow.id, `manual-${randomUUID()}`),
    args: [runInput(run)],
    typedSearchAttributes: runSearchAttributes(run),
  });
  return { id: handle.workflowId, runId: handle.firstExecutionRunId, snapshotId, entryNodeId: entry.nodeId };
}
