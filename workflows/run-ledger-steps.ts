/**
 * Where an automation run's ledger steps go (`db/automations/run-ledger.ts`): local activities of their own, or
 * riding on the run's first and last node activities (`NodeLedgerSteps`).
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { NodeFacts, NodeLedgerSteps, NodeOutcome, RunBegin, RunEnd, RunFailureReport, RunMemo } from '../lib/runtime/contract.js';
import { untilTheDatabaseAnswers } from './until-the-database-answers.js';

/** The run's ledger steps write only to agentry's database: they retry until it answers (`until-the-database-answers.ts`). */
const ledgerSteps = proxyLocalActivities<Activities>(untilTheDatabaseAnswers);

/** The account had no credits left when the run's first node was about to run: no node runs. */
export class NoCreditsAtStart extends Error {}

/**
 * Where a run's ledger steps go (a webhook run of three local nodes has three local activities rather than five).
 * Without `input.ledgerOnNodes` (and for a prevented loop): `beginRun` before any node and `finishRun` after the
 * last, local activities of their own. With it: the start rides on the first node when that node is local and
 * without AI (otherwise `beginRun` runs right before it), and the end on a final such node. A carried step that did
 * not happen (the node failed, or could not record the end) is made up by its own activity.
 */
export class RunLedgerSteps {
  /** AI credits of the nodes recorded so far. */
  credits = 0;
  /** The account had no credits left at the start. */
  noCredits = false;
  /** Nodes whose execution was started (entry nodes are not executed). */
  private nodesStarted = 0;
  private begun = false;
  private ended?: { operations: number; aiCredits: number };

  constructor(
    readonly begin: RunBegin,
    private readonly onNodes: boolean,
  ) {}

  /** Before any node, without `ledgerOnNodes`: `beginRun`; answers whether the account has no credits left. */
  async beginUpFront(): Promise<boolean> {
    if (!this.onNodes) this.noCredits = await this.record();
    return this.noCredits;
  }

  /**
   * After the nodes: `beginRun` when no node recorded the start (none was executed, or the one carrying it failed).
   * Answers whether the run did not run for lack of credits: it executed no node and the account had none left, as
   * if the start had been recorded first.
   */
  async beginAfter(): Promise<boolean> {
    if (this.begun || !(await this.record()) || this.nodesStarted > 0) return false;
    this.noCredits = true;
    return true;
  }

  /**
   * Whether the start must be recorded (`beginFirst`) before the node of `facts` runs: a node that cannot carry it
   * (a remote one, an AI node in steps) while no node has recorded it yet.
   */
  mustBeginFirst(facts: NodeFacts | undefined): boolean {
    return this.onNodes && !this.begun && !this.plain(facts);
  }

  /** Records the start before a node that cannot carry it; a run of an account without credits stops there. */
  async beginFirst(): Promise<void> {
    if (await this.record()) {
      this.noCredits = true;
      throw new NoCreditsAtStart();
    }
  }

  /** The ledger steps the node of `step` carries (after `beginFirst` when `mustBeginFirst`). */
  stepsFor(facts: NodeFacts | undefined, step: number, final: boolean): NodeLedgerSteps | undefined {
    this.nodesStarted += 1;
    if (!this.onNodes) return undefined;
    const steps: NodeLedgerSteps = {
      ...(this.begun ? {} : { begin: this.begin }),
      ...(this.plain(facts) && final ? { end: this.successfulEnd(step) } : {}),
    };
    return steps.begin || steps.end ? steps : undefined;
  }

  /** A local node without AI steps: it can carry the ledger's steps. */
  private plain(facts: NodeFacts | undefined): boolean {
    return !!facts?.local && !facts.aiSteps;
  }

  /** Takes note of what the node's activity did of the steps it carried; answers its outcome. */
  carried(steps: NodeLedgerSteps | undefined, outcome: NodeOutcome): NodeOutcome {
    if (steps?.begin) {
      if (outcome.ledger?.insufficientCredits) {
        this.noCredits = true;
        throw new NoCreditsAtStart();
      }
      this.begun = true;
    }
    if (steps?.end && outcome.ledger?.ended) {
      this.ended = { operations: steps.end.operations, aiCredits: steps.end.aiCredits + (outcome.aiCredits ?? 0) };
    }
    return outcome;
  }

  /** Whether a node already recorded the run's end as `memo` says it ended. */
  private endedAs(memo: RunMemo): boolean {
    return !!this.ended && memo.successful && this.ended.operations === memo.operations && this.ended.aiCredits === memo.aiCredits;
  }

  /** Records how the run ended, unless its last node already recorded this very end. */
  async finish(memo: RunMemo, status: RunEnd['status'], failure?: RunFailureReport): Promise<void> {
    if (status === 'successful' && this.endedAs(memo)) return;
    await ledgerSteps.finishRun({ ...this.endOf(memo, status), ...(failure ? { failure } : {}) });
  }

  private successfulEnd(step: number): RunEnd {
    const memo = { successful: true, operations: step, aiCredits: this.credits, error: null, preventedLoop: false, insufficientCredits: false };
    return this.endOf(memo, 'successful');
  }

  /** The ledger's end of this run, as `memo` says it ended, now. */
  private endOf({ successful: _, ...memo }: RunMemo, status: RunEnd['status']): RunEnd {
    return { id: this.begin.id, status, ...memo, completedAt: new Date(Date.now()).toISOString() };
  }

  private async record(): Promise<boolean> {
    const { insufficientCredits } = await ledgerSteps.beginRun(this.begin);
    this.begun = true;
    return insufficientCredits;
  }
}
