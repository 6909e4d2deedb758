/**
 * The bookkeeping activities of the conversation workflow (its flow nodes run through `executeNode`): the start of
 * a turn (the user's message into the transcript, the agent's live flows, where the message enters them), the end
 * of a flow entered by the AI (run counts), and the conversation events (idle, ended). Each is safe to run twice: messages are
 * keyed, counts and events are recorded once per key (`once`, db/node-effects/). The workflow retries them until the database
 * answers; other failures fail them after as many attempts as before (`failsAfter`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Conversation } from '../db/agents/conversation.entity.js';
import { GraphSnapshot } from '../db/automations/graph-snapshot.entity.js';
import { appendMessage } from '../db/agents/conversations.service.js';
import { readTurnRows, type TurnRows } from '../db/agents/turn-context.js';
import { countFlowRun, flowRunKey } from '../db/agents/flow-runs.js';
import { recordConversationEvent } from '../db/automations/events.service.js';
import type { Orm } from '../db/orm.js';
import type { OutboxNotifier } from '../db/automations/outbox-notifier.js';
import { matchIntents, type IntentPhrases } from '../lib/intents/intent-match.js';
import type { Graph } from '../lib/graph/graph.js';
import { conversationWorkflowId, type FlowPosition, type FlowRoute, type LiveFlow, type TurnContext } from '../lib/runtime/conversation-contract.js';
import type { NodeFacts } from '../lib/runtime/contract.js';
import { once } from '../db/node-effects/node-effects.js';
import { failsAfter } from './fails-after.js';
import { nodeFactsOf } from '../nodes/registry.js';

export interface BeginTurnInput {
  accountId: number;
  agentId: string;
  conversationId: string;
  channel: string;
  turn: number;
  /** The user's message (absent for the greeting), keyed so a repeated turn writes it once. */
  message?: { text: string; key: string; metadata?: { pageUrl?: string; userAgent?: string; voice?: boolean } };
  /** Live snapshots the workflow already holds: their graphs are not sent again. */
  knownSnapshots: string[];
  /** A RESPONSE_AI waiting for this message: the turn resumes there instead of routing (when its flow is still live). */
  waiting?: FlowPosition | null;
  temporalRunId: string;
}

/**
 * Live snapshots are immutable, so their graphs are kept in memory by id: a turn reads its flows' graphs without a
 * query once they have been read (least recently used ones dropped past `SNAPSHOT_CACHE_SIZE`).
 */
const SNAPSHOT_CACHE_SIZE = 1000;
const snapshotCache = new Map<string, Graph>();

async function graphsOf(em: EntityManager, ids: string[]): Promise<Map<string, Graph>> {
  const missing = ids.filter((id) => !snapshotCache.has(id));
  if (missing.length) {
    for (const s of await em.find(GraphSnapshot, { id: { $in: missing }, kind: 'LIVE' })) snapshotCache.set(s.id, { nodes: s.nodes, edges: s.edges });
  }
  const found = new Map<string, Graph>();
  for (const id of ids) {
    const graph = snapshotCache.get(id);
    if (!graph) continue;
    snapshotCache.delete(id);
    snapshotCache.set(id, graph);
    found.set(id, graph);
  }
  while (snapshotCache.size > SNAPSHOT_CACHE_SIZE) snapshotCache.delete(snapshotCache.keys().next().value!);
  return found;
}

/** Characters of a user message matched against training phrases. */
const MATCHED_CHARACTERS = 2000;

/** Said when a turn has no message and no AI provider can write one (`CONVERSATION_FALLBACK_MESSAGE`). */
const DEFAULT_FALLBACK = "Sorry, I can't help with that right now. Could you put it another way?";

/** The live flows of a turn's rows with their graphs (a flow whose snapshot is gone is left out). */
async function withGraphs(em: EntityManager, flows: TurnRows['flows']): Promise<(LiveFlow & { graph: Graph })[]> {
  const graphs = await graphsOf(
    em,
    flows.map((f) => f.liveSnapshotId),
  );
  return flows.flatMap((f) => {
    const graph = graphs.get(f.liveSnapshotId);
    return graph ? [{ flowId: f.id, isDefault: f.isDefault, snapshotId: f.liveSnapshotId, ...(f.version ? { version: f.version } : {}), graph }] : [];
  });
}

/**
 * Where a user message enters the flows: the TRIGGER_INTENT whose intents match it locally; a tie between flows, or
 * flows entered by `agenticRouting`, are left to the AI (`askAi`) when there is one — without one the best local match
 * wins and agentic routing is not available.
 */
function routeMessage(
  input: BeginTurnInput,
  flows: (LiveFlow & { graph: Graph })[],
  known: IntentPhrases[],
  aiAvailable: boolean,
): { route: FlowRoute | null; askAi: TurnContext['askAi'] } {
  const entries = flows.flatMap((flow) => {
    if (flow.isDefault) return [];
    const entry = flow.graph.nodes.find((n) => n.type === 'TRIGGER_INTENT');
    return entry ? [{ flow, entry, intentIds: Array.isArray(entry.data.intentIds) ? entry.data.intentIds.map(Number) : [] }] : [];
  });
  if (!input.message || !entries.length) return { route: null, askAi: [] };
  const intentIds = [...new Set(entries.flatMap((e) => e.intentIds))];
  const intents = known.filter((i) => intentIds.includes(i.id));
  // The start of a long message says what it is about; matching all of it would only cost time.
  const match = matchIntents(input.message.text.slice(0, MATCHED_CHARACTERS), intents);
  const flowOfIntent = (intentId: number) => entries.find((e) => e.intentIds.includes(intentId));
  const best = match.best && flowOfIntent(match.best.intentId);
  const routeToBest = () => ({
    route: best
      ? { flowId: best.flow.flowId, nodeId: best.entry.nodeId, by: 'intent' as const, intentId: match.best!.intentId, score: match.best!.score }
      : null,
    askAi: [],
  });
  if (!aiAvailable || (best && !match.ambiguous)) return routeToBest();
  const agentic = entries.filter(({ entry }) => typeof entry.data.agenticRouting === 'string' && entry.data.agenticRouting.trim());
  const tied = match.ambiguous ? match.candidates.flatMap((c) => flowOfIntent(c.intentId) ?? []) : [];
  const judged = [...new Map([...tied, ...agentic].map((e) => [e.flow.flowId, e])).values()];
  if (!judged.length) return routeToBest();
  const namesOf = (ids: number[]) => intents.filter((i) => ids.includes(i.id)).map((i) => `"${i.name}"`);
  return {
    route: null,
    askAi: judged.map(({ flow, entry, intentIds: ids }) => ({
      flowId: flow.flowId,
      nodeId: entry.nodeId,
      instruction: String(entry.data.agenticRouting ?? '').trim() || `The user asks about ${namesOf(ids).join(' or ') || 'this topic'}`,
    })),
  };
}

/** The turn's rows, its live flows with their graphs and node facts, where the message enters and the run it counts. */
async function readAndRoute(em: EntityManager, input: BeginTurnInput, aiAvailable: boolean) {
  const rows = await readTurnRows(em.getKnex(), input.conversationId, { withIntents: !!input.message, withWelcome: input.turn === 0 });
  const flows = await withGraphs(em, rows.flows);
  const facts: Record<string, NodeFacts> = {};
  for (const flow of flows) Object.assign(facts, nodeFactsOf(flow.graph));
  Object.assign(facts, nodeFactsOf({ nodes: [{ type: 'SAY_AI' }], edges: [] } as unknown as Graph));
  const waiting = input.waiting;
  const resumes = !!waiting && flows.some((f) => f.flowId === waiting.flowId && f.snapshotId === waiting.snapshotId);
  const { route, askAi } = resumes ? { route: null, askAi: [] } : routeMessage(input, flows, rows.intents, aiAvailable);
  // A flow entered now counts one run: the default flow at the greeting, the flow the message routes to. The turn's
  // first node execution counts it while it works, not here one round trip after the rows.
  const entered = input.turn === 0 ? flows.find((f) => f.isDefault)?.flowId : route?.flowId;
  const count = entered === undefined ? undefined : { key: flowRunKey(conversationWorkflowId(input.conversationId), input.turn), flowId: entered };
  return { rows, flows, facts, route, askAi, count };
}

export function createTurnActivities(orm: Orm, options: { fallbackMessage?: string; outbox?: OutboxNotifier; aiAvailable?: boolean } = {}) {
  return {
    /** Starts a turn: the user's message into the transcript, the live flows, the route of the message. */
    beginTurn: failsAfter(4, async (input: BeginTurnInput): Promise<TurnContext> => {
      const em = orm.em.fork();
      // The user's message is written while the turn's rows are read: neither reads the other.
      const [, { rows, flows, facts, route, askAi, count }] = await Promise.all([
        input.message &&
          appendMessage(em, {
            accountId: input.accountId,
            conversationId: input.conversationId,
            key: input.message.key,
            author: 'user',
            text: input.message.text,
            turn: input.turn,
            temporalRunId: input.temporalRunId,
            metadata: input.message.metadata ?? null,
          }),
        readAndRoute(em, input, options.aiAvailable ?? false),
      ]);
      const known = new Set(input.knownSnapshots);
      return {
        flows: flows.map(({ graph, ...flow }) => (known.has(flow.snapshotId) ? flow : { ...flow, graph })),
        nodeFacts: facts,
        builtIns: {
          conversation_id: input.conversationId,
          channel: input.channel,
          agent_name: rows.agentName,
          // An identified widget visitor (a verified userHash) brings their name and email.
          ...(rows.contactName ? { contact_name: rows.contactName } : {}),
          ...(rows.contactEmail ? { contact_email: rows.contactEmail } : {}),
          current_date: new Date().toISOString(),
          ...(input.message ? { last_user_message: input.message.text } : {}),
        },
        route,
        askAi,
        fallbackText: rows.welcomeMessage || options.fallbackMessage || DEFAULT_FALLBACK,
        agentName: rows.agentName,
        aiAvailable: options.aiAvailable ?? false,
        ...(count ? { count } : {}),
      };
    }),

    /** Counts the run of a flow the AI routed the message to (the turn's first node execution counts the others). */
    countRoutedRun: failsAfter(4, async (input: { conversationId: string; turn: number; flowId: number }): Promise<void> => {
      await countFlowRun(orm.em.fork(), flowRunKey(conversationWorkflowId(input.conversationId), input.turn), input.flowId);
    }),

    /** CONVERSATION_IDLE: no user message for the channel's idle time (once per quiet period). */
    conversationIdle: failsAfter(
      5,
      async (input: { accountId: number; agentId: string; conversationId: string; turns: number; idleMinutes: number }) => {
        await once(orm.em, `${conversationWorkflowId(input.conversationId)}/idle-${input.turns}`, async (tx) => {
          await recordConversationEvent(tx, input.accountId, {
            type: 'CONVERSATION_IDLE',
            agentId: input.agentId,
            conversationId: input.conversationId,
            details: { idleMinutes: input.idleMinutes, turns: input.turns },
          });
          return null;
        });
        options.outbox?.poke();
      },
    ),

    /** Ends the conversation: status, end time, reason, and CONVERSATION_ENDED, in one transaction, once. */
    closeConversation: failsAfter(5, async (input: { accountId: number; agentId: string; conversationId: string; reason: string }) => {
      await once(orm.em, `${conversationWorkflowId(input.conversationId)}/end`, async (tx) => {
        const conversation = await tx.findOneOrFail(Conversation, { id: input.conversationId });
        conversation.status = 'ENDED';
        conversation.endedAt = new Date();
        conversation.endReason = input.reason;
        conversation.claimedBy = null;
        conversation.claimedAt = null;
        await recordConversationEvent(tx, input.accountId, {
          type: 'CONVERSATION_ENDED',
          agentId: input.agentId,
          conversationId: input.conversationId,
          details: { reason: input.reason, channel: conversation.channel, turns: conversation.turns, messageCount: conversation.messageCount },
        });
        await tx.flush();
        return null;
      });
      options.outbox?.poke();
    }),
  };
}

export type TurnActivities = ReturnType<typeof createTurnActivities>;
