/**
 * Replay safety: real run histories (recorded by `record-histories.ts`) replayed against the current workflow code
 * with the SDK's replayer. A change to workflow code that would make runs in flight fail (a command added, removed
 * or reordered without `patched()`) fails here as a nondeterminism error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { workflowsPath } from '../../worker/create-worker.js';

const dir = fileURLToPath(new URL('./histories/', import.meta.url));
const fixtures = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .sort();

describe('replaying recorded run histories with the current workflow code', function () {
  this.timeout(120_000);
  let bundle: WorkflowBundleWithSourceMap;

  before(async () => {
    bundle = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
  });

  it('has the recorded histories: a webhook run, a loop with BREAK, a failed run, a cancelled run, a retried run, a retry job, scheduled runs before and with their time, conversations, AI nodes and TOOLS_AI before and in steps', () => {
    // conversation.json predates AI nodes in steps (each AI node executed again after its call): it proves that runs
    // in flight keep that path; the ai-steps-* histories, recorded with the ai-nodes-prepare-finish patch, prove theirs.
    // The runs without ledger-on-nodes-* in their names predate `ledgerOnNodes` (ledger steps as local activities
    // of their own); the ledger-on-nodes-* ones were started with it. The conversations but one-timer-conversation.json
    // predate the conversation-one-deadline-timer patch (each message restarted the deadline timer). tools-ai-run.json
    // predates TOOLS_AI in steps (executed again after each AI call), though its DATA_TRANSFORMER ran in steps: the
    // run's input says which node types have steps; tools-ai-steps-run.json was recorded with TOOLS_AI in steps.
    // retry-job.json (one batch) predates retry-job-waits-for-its-retries; retry-job-batches.json (12 runs, two
    // batches) waited for its retries before its second batch.
    // failure-reported-run.json ends reporting its failure to the ledger (AUTOMATION_FAILED); its retry,
    // retried-from-failed-node-run.json, starts at the failed node with the kept results in its input (`resume`).
    // scheduled-run.json, a run its schedule started, predates the scheduled-time-in-payload patch;
    // scheduled-time-run.json, an occurrence a backfill ran, has its scheduled time in its trigger payload.
    expect(fixtures).to.deep.equal([
      'ai-steps-conversation.json',
      'ai-steps-run.json',
      'cancelled-run.json',
      'conversation.json',
      'failed-run.json',
      'failure-reported-run.json',
      'ledger-on-nodes-failed-run.json',
      'ledger-on-nodes-run.json',
      'loop-with-break.json',
      'one-timer-conversation.json',
      'retried-from-failed-node-run.json',
      'retry-job-batches.json',
      'retry-job.json',
      'scheduled-run.json',
      'scheduled-time-run.json',
      'tools-ai-run.json',
      'tools-ai-steps-run.json',
      'webhook-run.json',
    ]);
  });

  for (const name of fixtures) {
    it(`replays ${name} without nondeterminism`, async () => {
      const { workflowId, history } = JSON.parse(readFileSync(`${dir}${name}`, 'utf8')) as { workflowId: string; history: string };
      await Worker.runReplayHistory({ workflowBundle: bundle }, temporal.api.history.v1.History.decode(Buffer.from(history, 'base64')), workflowId);
    });
  }
});
