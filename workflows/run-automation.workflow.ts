import { ApplicationFailure, CancellationScope, isCancellation, patched, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { GraphNode } from '../lib/graph/graph.js';
import type {
  AutomationRunResult,
  ExecuteNodeInput,
  NodeFacts,
  NodeOutcome,
  RunAutomationInput,
  RunBegin,
  RunMemo,
  RunFailureReport,
  RunResult,
} from '../lib/runtime/contract.js';
import { interpret, RunFailure } from './interpreter/interpreter.js';
import { boundedResult, utf8Length } from './interpreter/bounded-result.js';
import { LocalBatch, NodeExecutionFailure, runNodeExecution } from './node-runner.js';
import { awaitAdmission } from './await-admission.js';
import { NoCreditsAtStart, RunLedgerSteps } from './run-ledger-steps.js';
import { withScheduledTime } from '../lib/schedules/scheduled-time.js';

export type { AutomationRunResult, RunAutomationInput, RunMemo, RunTrigger } from '../lib/runtime/contract.js';

/**
 * Temporal fails a workflow whose history passes 50 MB or 51,200 events; a run stops itself before that, at the
 * node that would pass these, with a message saying what to change.
 */
export const HISTORY_LIMITS = { bytes: 40 * 1024 * 1024, events: 40_000 };

/**
 * One run of an automation: the pure interpreter, with every executed node as an activity (a local one but for
 * node types that may work for long) and every AI call of a node as an activity of its own (`node-runner.ts`). A run that does not succeed fails the Temporal execution (type RunFailed, PreventedLoop or
 * InsufficientCredits) with its result as the failure's details, so the Temporal UI shows it as failed.
 */
export async function runAutomation(started: RunAutomationInput): Promise<AutomationRunResult> {
  const info = workflowInfo();
  const runWorkflowId = info.workflowId; // the Temporal workflow id names the run in the ledger
  const input = scheduledTimeIn(started, runWorkflowId);
  if (input.awaitAdmission) await awaitAdmission({ runWorkflowId, accountId: input.accountId, automationId: input.automationId });
  const begin: RunBegin = {
    id: runWorkflowId,
    accountId: input.accountId,
    automationId: input.automationId,
    triggerType: input.trigger?.type ?? 'MANUAL',
    eventId: input.trigger?.eventId ?? null,
    startedAt: info.startTime.toISOString(),
    snapshotId: input.snapshotId,
  };
  // Runs started before `ledgerOnNodes` begin and end with ledger steps of their own, and replay so.
  const ledger = new RunLedgerSteps(begin, !!input.ledgerOnNodes && !input.preventedLoop);
  const insufficientCredits = await ledger.beginUpFront();
  const chain = [...(input.chain ?? []), input.automationId];
  let run: RunResult | undefined;
  let executed = 0;
  const batch = new LocalBatch();
  // An AI node refused for lack of credits (the balance would go below zero) stops the run like an empty balance.
  const credits = { ranOut: false };
  if (!input.preventedLoop && !insufficientCredits) {
    try {
      const { resume } = input;
      run = await interpret(
        input.graph,
        resume?.fromNodeId ?? input.entryNodeId,
        (node, { interpolatedData, step, final }) =>
          runNode(input, chain, node, { data: interpolatedData, step, final: !!final }, { batch, ledger, credits }),
        {
          triggerPayload: input.triggerPayload,
          nodeFacts: input.nodeFacts,
          // A retry from the failed node starts there, with what the retried run had before it.
          ...(resume ? { variables: resume.variables, resumed: { nodeResults: resume.nodeResults, outputs: resume.outputs } } : {}),
          propagate: (error) => isCancellation(error) || error instanceof NoCreditsAtStart,
          now: () => Date.now(),
          onRecord: (result) => {
            executed += 1;
            ledger.credits += result.aiCredits ?? 0;
          },
        },
      );
    } catch (error) {
      if (isCancellation(error)) {
        await CancellationScope.nonCancellable(async () => {
          await ledger.beginAfter();
          await end(
            ledger,
            { successful: false, operations: executed, aiCredits: 0, error: 'Cancelled', insufficientCredits: false, preventedLoop: false },
            'cancelled',
          );
        });
      }
      if (!(error instanceof NoCreditsAtStart)) throw error;
    }
    if (run && (await ledger.beginAfter())) run = undefined;
  }
  run ??= {
    successful: false,
    error: {
      nodeId: input.entryNodeId,
      message: input.preventedLoop
        ? `Loop prevented: workflow ${input.automationId} was triggered again by an event its own run caused (automations ${chain.join(' → ')})`
        : `Insufficient credits: the account has no credits left, so workflow ${input.automationId} did not run`,
    },
    steps: 0,
    nodeResults: [],
    variables: {},
  };
  const result: AutomationRunResult = boundedResult({
    ...run,
    aiCredits: run.nodeResults.reduce((sum, r) => sum + (r.aiCredits ?? 0), 0),
    insufficientCredits: !input.preventedLoop && (ledger.noCredits || credits.ranOut),
    preventedLoop: !!input.preventedLoop,
  });
  const memo: RunMemo = {
    successful: result.successful,
    operations: result.steps,
    aiCredits: result.aiCredits,
    error: result.error?.message ?? null,
    insufficientCredits: result.insufficientCredits,
    preventedLoop: result.preventedLoop,
  };
  await end(
    ledger,
    memo,
    result.successful ? 'successful' : 'failed',
    result.successful || result.preventedLoop ? undefined : failureReport(input, result, chain),
  );
  if (result.successful) return result;
  const type = result.preventedLoop ? 'PreventedLoop' : result.insufficientCredits ? 'InsufficientCredits' : 'RunFailed';
  throw ApplicationFailure.create({ message: memo.error ?? 'The run failed', type, nonRetryable: true, details: [result] });
}

/** Scheduled runs started with the patch have their scheduled time in the trigger payload (`scheduledTime`). */
export const SCHEDULED_TIME_PATCH = 'scheduled-time-in-payload';

/**
 * A schedule's run (a fire, a backfilled occurrence, a trigger) gets its scheduled time, read from its workflow id,
 * in `{trigger_payload.scheduledTime}`; scheduled runs started before the patch replay with the payload they had.
 */
function scheduledTimeIn(input: RunAutomationInput, runWorkflowId: string): RunAutomationInput {
  if (input.trigger?.type !== 'SCHEDULED_TRIGGER') return input;
  const triggerPayload = withScheduledTime(input.triggerPayload, runWorkflowId);
  return triggerPayload !== input.triggerPayload && patched(SCHEDULED_TIME_PATCH) ? { ...input, triggerPayload } : input;
}

/** Where a node runs in its run: its interpolated data, its step, and whether the run ends when it succeeds. */
interface NodeStep {
  data: GraphNode['data'];
  step: number;
  final: boolean;
}

/** What a run's nodes share: the local batch, the ledger's steps, and whether an AI node found the credits gone. */
interface RunNodes {
  batch: LocalBatch;
  ledger: RunLedgerSteps;
  credits: { ranOut: boolean };
}

/**
 * One node: an entry node's output is the trigger payload; any other runs through `runNodeExecution`. Promise
 * chains rather than async functions: in a workflow every promise costs a stack trace (the SDK's promise hook), and
 * a chain of nodes pays it per node.
 */
function runNode(input: RunAutomationInput, chain: number[], node: GraphNode, at: NodeStep, nodes: RunNodes): Promise<NodeOutcome> {
  const facts = input.nodeFacts[node.type];
  if (facts?.entry) return Promise.resolve({ output: input.triggerPayload ?? null });
  const { historySize, historyLength } = workflowInfo();
  if (historySize > HISTORY_LIMITS.bytes || historyLength > HISTORY_LIMITS.events) {
    const size = `${(historySize / 1024 / 1024).toFixed(1)} MB in ${historyLength} events`;
    const message =
      `The run's history has grown to ${size}, near Temporal's limit, so node ${node.alias || node.nodeId} was not executed: ` +
      'make node outputs smaller (narrow API responses, SEARCH filters) or loop over fewer items per run';
    return Promise.reject(new RunFailure(node.nodeId, message, true));
  }
  // A node that cannot carry the run's start (a remote one, an AI node in steps) first has it recorded.
  if (nodes.ledger.mustBeginFirst(facts)) return nodes.ledger.beginFirst().then(() => nodeExecution(input, chain, node, facts, at, nodes));
  return nodeExecution(input, chain, node, facts, at, nodes);
}

/** A node that is not an entry node, with the ledger steps it carries. */
function nodeExecution(
  input: RunAutomationInput,
  chain: number[],
  node: GraphNode,
  facts: NodeFacts | undefined,
  { data, step, final }: NodeStep,
  { batch, ledger, credits }: RunNodes,
): Promise<NodeOutcome> {
  const steps = ledger.stepsFor(facts, step, final);
  const { workflowId, runId } = workflowInfo();
  const args: ExecuteNodeInput = {
    accountId: input.accountId,
    automationId: input.automationId,
    node: { nodeId: node.nodeId, alias: node.alias, type: node.type },
    data,
    executionKey: `${workflowId}/${runId}#${step}`,
    chain,
    ...(facts?.readsTriggerPayload ? { triggerPayload: input.triggerPayload } : {}),
    ...(steps ? { ledger: steps } : {}),
  };
  return runNodeExecution(args, facts, batch).then(
    (outcome) => ledger.carried(steps, outcome),
    (error: unknown) => {
      // Out of credits ends the run (fatal), even inside a loop that continues on errors.
      if (error instanceof NodeExecutionFailure && error.type === 'InsufficientCredits') {
        credits.ranOut = true;
        throw new RunFailure(node.nodeId, error.message, true);
      }
      throw error;
    },
  );
}

async function end(ledger: RunLedgerSteps, memo: RunMemo, status: 'successful' | 'failed' | 'cancelled', failure?: RunFailureReport): Promise<void> {
  upsertMemo({ ...memo });
  await ledger.finish(memo, status, failure);
}

/** Trigger payloads larger than this (as JSON) reach AUTOMATION_FAILED runs summarised. */
const REPORTED_PAYLOAD_BYTES = 64 * 1024;

/** How the run failed, for the automations that react to its failure. */
function failureReport(input: RunAutomationInput, result: AutomationRunResult, chain: number[]): RunFailureReport {
  const node = result.error ? input.graph.nodes.find((n) => n.nodeId === result.error!.nodeId) : undefined;
  const json = JSON.stringify(input.triggerPayload ?? null);
  const bytes = utf8Length(json);
  return {
    runId: workflowInfo().runId,
    node: node ? { nodeId: node.nodeId, alias: node.alias, type: node.type } : null,
    error: result.error?.message ?? 'The run failed',
    triggerType: input.trigger?.type ?? 'MANUAL',
    triggerPayload: bytes <= REPORTED_PAYLOAD_BYTES ? (input.triggerPayload ?? null) : { truncated: true, bytes, preview: json.slice(0, 200) },
    chain,
  };
}
