/**
 * One turn of a conversation (workflow code: deterministic, I/O only through activities). Flow rules of SPEC.md:
 * the greeting (turn 0) runs the default flow from its START node; a user message resumes a RESPONSE_AI waiting for
 * it, else enters the flow whose TRIGGER_INTENT it matches (`beginTurn` matched the training phrases; the AI judges
 * ties and `agenticRouting`); a turn that ends without a message to the user sends the agent's default reply (the AI
 * writes it; without a provider, the fallback text). A failed node ends the walk of that flow, not the conversation.
 */
import { isCancellation, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { Graph, GraphNode } from '../../lib/graph/graph.js';
import {
  conversationWorkflowId,
  type ConversationInput,
  type ConversationState,
  type TurnContext,
  type TurnReply,
  type UserMessage,
} from '../../lib/runtime/conversation-contract.js';
import type { ConversationAction, ExecuteNodeInput, FlowRunCount, NodeFacts, NodeOutcome, SentMessage } from '../../lib/runtime/contract.js';
import { untilTheDatabaseAnswers } from '../until-the-database-answers.js';
import { interpret } from '../interpreter/interpreter.js';
import { LocalBatch, runNodeExecution } from '../node-runner.js';

/**
 * The start of a turn (the user's message into the transcript) and the run count of a routed flow write only to
 * agentry's database: they retry until it answers (`../until-the-database-answers.ts`), so a PostgreSQL outage fails no turn.
 */
const bookkeeping = proxyLocalActivities<Activities>(untilTheDatabaseAnswers);

/** Executed nodes per turn; a flow that loops longer fails its walk. */
const MAX_STEPS_PER_TURN = 100;

const DEFAULT_REPLY = {
  greeting: 'Greet the user in one or two sentences and offer your help.',
  reply: "Answer the user's last message helpfully, following your instructions.",
};

interface Start {
  flowId: number;
  snapshotId: string;
  nodeId: string;
  /** The node is the RESPONSE_AI that waited for this message: it runs now instead of pausing again. */
  resume: boolean;
  entryOutput?: unknown;
}

/** The transcript key of a user message: its client id, else its turn (a repeated turn writes it once). */
export const userMessageKey = (conversationId: string, turn: number, message: UserMessage) =>
  `${conversationWorkflowId(conversationId)}/${message.messageId ? `m-${message.messageId}` : `turn-${turn}`}`;

/** A turn's reply, and what its nodes asked of the conversation (end it, hand it off) once it is said. */
export interface Turn {
  reply: TurnReply;
  actions: ConversationAction[];
}

export class TurnRunner {
  /** Graphs of live snapshots already loaded in this run, by snapshot id. */
  private readonly graphs = new Map<string, Graph>();
  /** Local node outputs of the turn not yet sent to Temporal (a turn's workflow tasks end when it does). */
  private batch = new LocalBatch();
  /** The flow run the turn's next node execution counts (its first one: every turn runs one, a reply at least). */
  private count: FlowRunCount | undefined;

  constructor(
    private readonly input: ConversationInput,
    private readonly state: ConversationState,
  ) {}

  async run(turn: number, message?: UserMessage): Promise<Turn> {
    const { input, state } = this;
    this.batch = new LocalBatch();
    const info = workflowInfo();
    const context = await bookkeeping.beginTurn({
      accountId: input.accountId,
      agentId: input.agentId,
      conversationId: input.conversationId,
      channel: input.channel,
      turn,
      ...(message
        ? {
            message: {
              text: message.text,
              key: userMessageKey(input.conversationId, turn, message),
              ...(message.metadata ? { metadata: message.metadata } : {}),
            },
          }
        : {}),
      knownSnapshots: [...this.graphs.keys()],
      waiting: message ? state.waiting : null,
      temporalRunId: info.runId,
    });
    for (const flow of context.flows) if (flow.graph) this.graphs.set(flow.snapshotId, flow.graph);
    this.count = context.count;
    const messages: SentMessage[] = [];
    const actions: ConversationAction[] = [];
    let error: TurnReply['error'];
    const start = await this.startOf(context, turn, message);
    state.waiting = null;
    if (start) {
      const variables = { ...state.variables, ...context.builtIns };
      let resumeAt = start.resume ? start.nodeId : undefined;
      const result = await interpret(
        this.graphs.get(start.snapshotId)!,
        start.nodeId,
        async (node, { interpolatedData, step }) => {
          const facts = context.nodeFacts[node.type];
          if (facts?.entry) return { output: start.entryOutput ?? null };
          if (facts?.awaitsAnswer && resumeAt !== node.nodeId) return { suspend: true };
          resumeAt = undefined;
          const flowVersion = context.flows.find((f) => f.snapshotId === start.snapshotId)?.version;
          const outcome = await this.node(node, interpolatedData, facts, { turn, step, flowId: start.flowId, flowVersion, message });
          messages.push(...(outcome.messages ?? []));
          actions.push(...(outcome.conversationActions ?? []));
          return outcome;
        },
        { nodeFacts: context.nodeFacts, variables, propagate: isCancellation, maxSteps: MAX_STEPS_PER_TURN },
      );
      for (const [name, value] of Object.entries(result.variables)) if (!(name in context.builtIns)) state.variables[name] = value;
      if (result.suspendedAt) state.waiting = { flowId: start.flowId, snapshotId: start.snapshotId, nodeId: result.suspendedAt };
      if (result.error) error = result.error;
    }
    // A flow that ends the conversation or hands it off has said what it meant to (the handoff notice follows).
    if (!messages.length && !actions.length) {
      const reply = await this.defaultReply(context, turn, message);
      messages.push(...(reply.messages ?? []));
      actions.push(...(reply.conversationActions ?? []));
    }
    return {
      reply: {
        conversationId: input.conversationId,
        turn,
        messages,
        temporal: { workflowId: info.workflowId, runId: info.runId },
        ...(error ? { error } : {}),
      },
      actions,
    };
  }

  /** Where the turn enters the flows: the greeting's START, a waiting RESPONSE_AI, or the flow the message routes to. */
  private async startOf(context: TurnContext, turn: number, message?: UserMessage): Promise<Start | undefined> {
    const live = (flowId: number) => context.flows.find((f) => f.flowId === flowId);
    if (!message) {
      const flow = context.flows.find((f) => f.isDefault);
      const entry = flow && this.graphs.get(flow.snapshotId)?.nodes.find((n) => n.type === 'START');
      return flow && entry ? { flowId: flow.flowId, snapshotId: flow.snapshotId, nodeId: entry.nodeId, resume: false } : undefined;
    }
    const waiting = this.state.waiting;
    if (waiting && live(waiting.flowId)?.snapshotId === waiting.snapshotId) return { ...waiting, resume: true };
    let route = context.route;
    if (!route && context.askAi.length) {
      const outcome = await this.node(
        { nodeId: 'route', alias: '', type: 'ROUTE_FLOW' },
        { type: 'ROUTE_FLOW', message: message.text, candidates: context.askAi },
        undefined,
        { turn, step: 0, flowId: null, message },
      );
      const chosen = outcome.output as { flowId?: number; nodeId?: string } | null;
      if (chosen?.flowId && chosen.nodeId) {
        route = { flowId: chosen.flowId, nodeId: chosen.nodeId, by: 'ai' };
        await bookkeeping.countRoutedRun({ conversationId: this.input.conversationId, turn, flowId: chosen.flowId });
      }
    }
    const flow = route && live(route.flowId);
    return flow && route
      ? { flowId: flow.flowId, snapshotId: flow.snapshotId, nodeId: route.nodeId, resume: false, entryOutput: { message: message.text, ...route } }
      : undefined;
  }

  /** The agent's own reply when no flow said anything: written by the AI, or the fallback text without one. */
  private async defaultReply(context: TurnContext, turn: number, message?: UserMessage): Promise<NodeOutcome> {
    const at = { turn, step: 0, flowId: null, message };
    const fallback = () =>
      this.node(
        { nodeId: 'fallback_reply', alias: '', type: 'SAY_AI' },
        { type: 'SAY_AI', message: context.fallbackText },
        { interpolated: [], local: true },
        at,
      );
    if (!context.aiAvailable) return fallback();
    const data = { type: 'SAY_AI', prompt: message ? DEFAULT_REPLY.reply : DEFAULT_REPLY.greeting, fallbackMessage: context.fallbackText };
    try {
      return await this.node({ nodeId: 'default_reply', alias: '', type: 'SAY_AI' }, data, context.nodeFacts.SAY_AI, at);
    } catch (error) {
      if (isCancellation(error)) throw error;
      // The AI could not write it (an error, no credits): the user still gets the fallback text.
      return fallback();
    }
  }

  /** One node execution (its AI calls activities of their own): local when its type, or SAY_AI's static message, says so. */
  private node(
    node: Pick<GraphNode, 'nodeId' | 'alias' | 'type'>,
    data: GraphNode['data'],
    facts: NodeFacts | undefined,
    at: { turn: number; step: number; flowId: number | null; flowVersion?: number; message?: UserMessage },
  ): Promise<NodeOutcome> {
    const info = workflowInfo();
    const args: ExecuteNodeInput = {
      accountId: this.input.accountId,
      automationId: at.flowId ?? 0,
      node: { nodeId: node.nodeId, alias: node.alias, type: node.type },
      data,
      executionKey: `${info.workflowId}/${info.runId}#t${at.turn}.${at.step}.${node.nodeId}`,
      conversation: {
        conversationId: this.input.conversationId,
        agentId: this.input.agentId,
        turn: at.turn,
        flowId: at.flowId,
        ...(at.flowVersion ? { flowVersion: at.flowVersion } : {}),
        temporalRunId: info.runId,
        ...(at.message ? { message: at.message.text } : {}),
      },
      ...(this.count ? { countFlowRun: this.count } : {}),
    };
    this.count = undefined;
    const unless = facts?.localUnless;
    const isLocal = facts?.local || (unless !== undefined && !(typeof data[unless] === 'string' && (data[unless] as string).trim() !== ''));
    return runNodeExecution(args, { interpolated: [], ...facts, local: !!isLocal }, this.batch);
  }
}
