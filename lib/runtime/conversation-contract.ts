/**
 * The contract of a conversation, shared by the API (which starts conversations and sends their messages), the
 * long-lived conversation workflow, and its activities. Types and names only, no imports but the pure graph model
 * and the run contract, so every side can depend on it.
 *
 * A conversation is one Temporal workflow, `conversation:<conversationId>`, on the turns task queue (conversation
 * turns never wait behind automation runs). Each user message is an update to it that runs one turn and answers the
 * agent's messages of that turn.
 */
import type { Graph } from '../graph/graph.js';
import type { FlowRunCount, NodeFactsByType, SentMessage } from './contract.js';

/** The Temporal workflow id of a conversation. */
export const conversationWorkflowId = (conversationId: string) => `conversation:${conversationId}`;

/** The task queue of conversation turns: the automation queue's name with this suffix. */
export const turnsTaskQueue = (taskQueue: string) => `${taskQueue}-turns`;

/** Names of the conversation workflow's updates and query (the API and the workflow both use them). */
export const CONVERSATION_UPDATES = { begin: 'begin', message: 'message', end: 'end', handoff: 'handoff', resume: 'resume' } as const;

export interface ConversationInput {
  accountId: number;
  agentId: string;
  conversationId: string;
  channel: string;
  /** CONVERSATION_IDLE after this many minutes without a user message; absent: no idle event. */
  idleMinutes?: number;
  /** Carried over by continue-as-new: where the conversation stood. */
  state?: ConversationState;
  /** Turns per workflow run before it continues as new (default 200; Temporal may suggest it earlier). */
  turnsPerRun?: number;
  /** Minutes without a user message after which the conversation ends by itself, reason EXPIRED (default a day). */
  expireMinutes?: number;
}

/** Where a conversation stands between turns; all of it survives continue-as-new. */
export interface ConversationState {
  /** Turns run so far (the greeting is turn 0). */
  turns: number;
  /** Agent variables captured so far, and the built-ins of the conversation. */
  variables: Record<string, unknown>;
  /** A RESPONSE_AI node waiting for the user's answer: the next message resumes the flow there. */
  waiting: FlowPosition | null;
  ended: boolean;
  /** The idle event already fired since the last user message. */
  idleFired: boolean;
  /** Workflow time (ms) of the last user message, or of the start: the idle and expiry timers count from it. */
  lastMessageAt?: number;
  /** A person has the conversation (status HANDED_OFF): user messages are recorded, the agent does not answer. */
  handedOff?: boolean;
  /** Handoffs so far (each one's bookkeeping is keyed by its number). */
  handoffs?: number;
}

export interface FlowPosition {
  flowId: number;
  snapshotId: string;
  nodeId: string;
}

/** A message the user sends; `messageId` (the client's) makes a resend answer the same turn instead of a new one. */
export interface UserMessage {
  text: string;
  messageId?: string;
  /** Recorded with the message in the transcript (a widget visitor's page URL and user agent; `voice`: transcribed from audio). */
  metadata?: { pageUrl?: string; userAgent?: string; voice?: boolean };
}

/** A message of the transcript, as the API shows it. */
export type TranscriptMessage = SentMessage;

/** The answer to a user message (or to the start): the agent's messages of that turn. */
export interface TurnReply {
  conversationId: string;
  turn: number;
  messages: TranscriptMessage[];
  /** The turn's Temporal execution: the conversation workflow and its run. */
  temporal: { workflowId: string; runId: string };
  /** A flow node that failed in this turn (the agent still answered, with its default reply). */
  error?: { nodeId: string; message: string };
}

/** A live flow of the agent, as a turn runs it. */
export interface LiveFlow {
  flowId: number;
  isDefault: boolean;
  snapshotId: string;
  /** The flow's version the snapshot is (absent for a snapshot from before versions were numbered). */
  version?: number;
  /** Absent when the workflow said it already holds this snapshot. */
  graph?: Graph;
}

/** What one turn needs to know, loaded at its start (`beginTurn`). */
export interface TurnContext {
  flows: LiveFlow[];
  nodeFacts: NodeFactsByType;
  /** Built-in variables of this turn (`last_user_message`, `current_date`, …). */
  builtIns: Record<string, unknown>;
  /** Where the message enters a flow (TRIGGER_INTENT matched locally), when it does. */
  route: FlowRoute | null;
  /** Flows whose TRIGGER_INTENT the AI should judge (`agenticRouting`, or a tie of local matches). */
  askAi: { flowId: number; nodeId: string; instruction: string }[];
  /** Said when the turn has no message and the AI cannot write one (the theme's welcome message for the greeting). */
  fallbackText: string;
  agentName: string;
  /** An AI provider is configured: the default reply is AI-written (else it is the fallback text, at once). */
  aiAvailable: boolean;
  /**
   * The run of the flow the turn enters (the default flow at the greeting, the flow the message routes to): the
   * turn's first node execution counts it, beside its own work. Absent from turns recorded before: `beginTurn`
   * counted it then.
   */
  count?: FlowRunCount;
}

export interface FlowRoute {
  flowId: number;
  nodeId: string;
  /** How the flow was chosen: `intent` (training phrases), `ai` (agentic routing or a tie broken by the AI). */
  by: 'intent' | 'ai';
  intentId?: number;
  score?: number;
}
