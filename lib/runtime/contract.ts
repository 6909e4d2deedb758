/**
 * The contract of an automation run, shared by whoever starts runs (API, outbox dispatcher, schedules), the
 * Temporal workflow and its activities, and whoever reads runs back (run logs). Types only and no imports but the
 * pure graph model and the contract of AI calls (`ai-call.ts`), so every side can depend on it without import circles.
 *
 * Names: `automationId` is the number of the automation (SPEC.md calls it `workflowId` at the API edge);
 * `temporalWorkflowId` is the id of a Temporal workflow execution, `runWorkflowId` that of an automation run's
 * (`automationRunWorkflowId`); `runId` is only ever Temporal's run id of an execution.
 */
import type { Graph, GraphNode } from '../graph/graph.js';
import type { AiCallRequest, AiReply } from './ai-call.js';

/** How a node type's captures write declared variables (SPEC.md, "Capturing values into variables"). */
export type CaptureKind = 'apiVariables' | 'captureVariables';

/**
 * What the run needs to know about a node type, fixed when the run starts and carried in its input, so the
 * workflow code holds no table of node types and a replay behaves as the run did when it ran.
 */
export interface NodeFacts {
  /** Data fields filled from `{variables}` before the node runs (`headers[].value` steps into every item). */
  interpolated: readonly string[];
  /** How the node's output is captured into declared variables; absent: it is not. */
  captures?: CaptureKind;
  /** Runs as a Temporal local activity (every node type but those that may work for long: `NodeModule.remote`). */
  local?: boolean;
  /** An entry node: its output is the delivered trigger payload, produced by the workflow without an activity. */
  entry?: boolean;
  /** Its executor reads `{trigger_payload}` itself (not only through interpolated fields). */
  readsTriggerPayload?: boolean;
  /** Runs as a local activity unless this data field is filled (a SAY_AI with a prompt calls the AI; one without does not). */
  localUnless?: string;
  /** In a conversation, the walk pauses at this node until the user's next message, which it then handles (RESPONSE_AI). */
  awaitsAnswer?: boolean;
  /**
   * An AI node in steps (`NodeModule.ai`): the workflow runs `prepareAiNode`, each AI call it asks for as an
   * `aiCall` activity, and `finishAiNode` with the reply, instead of executing the node again after each call.
   */
  aiSteps?: boolean;
}

/** Facts by node type, for the types a graph uses. */
export type NodeFactsByType = Readonly<Record<string, NodeFacts>>;

/** What started a run: MANUAL, SCHEDULED_TRIGGER, or the type of the outbox event (INCOMING_WEBHOOK, TABLE_ROW_CREATED, …). */
export interface RunTrigger {
  type: string;
  /** The outbox event, for event-started runs. */
  eventId?: string;
}

export interface RunAutomationInput {
  accountId: number;
  automationId: number;
  /** The immutable snapshot this run executes (live, or the draft for a manual test run). */
  snapshotId: string;
  graph: Graph;
  /** Facts of the node types of `graph`. */
  nodeFacts: NodeFactsByType;
  entryNodeId: string;
  triggerPayload: unknown;
  trigger?: RunTrigger;
  /** Automations whose runs led to this one through events, oldest first (this one is not in it). */
  chain?: number[];
  /** Set by the dispatcher when this run would start its automation again in a cycle: it stops before any node. */
  preventedLoop?: boolean;
  /** Set on runs Temporal starts by itself (schedules): the run first waits for admission (workflows/await-admission.ts). */
  awaitAdmission?: boolean;
  /**
   * The run's ledger steps ride on its node activities (`NodeLedgerSteps`). Set on every run started since; a run
   * started without it (before, or by a schedule created before) has ledger steps of their own, and replays so. An
   * input field rather than `patched()`, whose marker costs each run a search attribute update.
   */
  ledgerOnNodes?: boolean;
  /** The run this one retries (`POST /workflows/{id}/logs/{logId}/retry`), so its history records the link. */
  retryOf?: { runWorkflowId: string; runId: string };
  /** A retry from the failed node: the walk starts at `fromNodeId` with what the retried run had before it. */
  resume?: RunResume;
}

/**
 * What a retried run keeps of the run it retries (`lib/runtime/run-resume.ts`): the results of the nodes before the
 * failed one, their outputs (`{<nodeId>}`) and the declared variables as they were when the failed node started.
 */
export interface RunResume {
  fromNodeId: string;
  nodeResults: NodeResult[];
  outputs: Record<string, unknown>;
  variables: Record<string, unknown>;
}

/** The input of one `executeNode` activity: what that node needs, not the whole run. */
export interface ExecuteNodeInput {
  accountId: number;
  automationId: number;
  node: Pick<GraphNode, 'nodeId' | 'alias' | 'type'>;
  /** The node's data with its interpolable fields filled. */
  data: GraphNode['data'];
  /**
   * Names this node execution, the same on every attempt of it: `<temporalWorkflowId>/<runId>#<step>`. Side
   * effects are keyed by it, so a retried activity does what the first attempt did, once.
   */
  executionKey: string;
  /** The trigger payload, only for node types that read it (`readsTriggerPayload`). */
  triggerPayload?: unknown;
  /** The conversation a flow node runs in (flow nodes only; absent in automation runs). */
  conversation?: ConversationNodeContext;
  /**
   * The automations whose runs led to this node, this one last. Events the node causes (row writes) carry it, so
   * the dispatcher can stop a run that would close a loop.
   */
  chain?: number[];
  /**
   * The replies of the AI calls this node execution has made so far, in order (`lib/runtime/node-activities.ts`):
   * an AI node's `finish` step reads them (the last one answers the call just made).
   */
  aiReplies?: AiReply[];
  /** What an AI node's `prepare` (or previous `finish`) passed on with its AI call to the `finish` step. */
  aiState?: unknown;
  /** The run's ledger steps this node execution carries (automation runs, local nodes without AI only). */
  ledger?: NodeLedgerSteps;
  /** The flow run a turn's first node execution counts, beside its own work (`TurnContext.count`). */
  countFlowRun?: FlowRunCount;
}

/** One run of a flow, counted once per key (`db/agents/flow-runs.ts`). */
export interface FlowRunCount {
  key: string;
  flowId: number;
}

/** The start of an automation run, as its ledger records it (`db/automations/run-ledger.ts`). */
export interface RunBegin {
  /** The Temporal workflow id of the run. */
  id: string;
  accountId: number;
  automationId: number;
  triggerType: string;
  eventId?: string | null;
  startedAt: string;
  /** The graph snapshot the run executes (a version, or the draft); absent in runs started before it was recorded. */
  snapshotId?: string;
}

/** The end of an automation run, as its ledger records it. */
export interface RunEnd {
  id: string;
  status: 'successful' | 'failed' | 'cancelled';
  operations: number;
  aiCredits: number;
  error?: string | null;
  preventedLoop?: boolean;
  insufficientCredits?: boolean;
  completedAt: string;
  /** How a failed run failed, for the automations it triggers (AUTOMATION_FAILED); absent for a prevented loop. */
  failure?: RunFailureReport;
}

/** What a failed run tells the automations that react to failures (the AUTOMATION_FAILED event, `db/automations/run-ledger.ts`). */
export interface RunFailureReport {
  /** Temporal's run id of the failed execution (with its workflow id, `RunEnd.id`, its address in the Temporal UI). */
  runId: string;
  /** The node that failed; null when the run failed before any node (no credits left). */
  node: { nodeId: string; alias: string; type: string } | null;
  error: string;
  triggerType: string;
  /** The failed run's trigger payload (summarised when larger than 64 KB as JSON). */
  triggerPayload: unknown;
  /** The automations whose runs led to the failed one, the failed one last: the event carries it (loop prevention). */
  chain: number[];
}

/**
 * A run's ledger steps riding on a node activity instead of local activities of their own (each is one more
 * workflow activation and marker): `begin` before the run's first node, `end` after its last.
 */
export interface NodeLedgerSteps {
  /** Record the run's start before the node runs; when the account has no credits left, the node does not run. */
  begin?: RunBegin;
  /** Record the run's successful end once the node has succeeded (its AI credits are added to `aiCredits`). */
  end?: RunEnd;
}

/** What a node activity did of the ledger steps it carried (`ExecuteNodeInput.ledger`). */
export interface NodeLedgerOutcome {
  /** `begin` found the account without credits: the node was not executed. */
  insufficientCredits?: boolean;
  /** `end` was recorded (false: it failed, and the workflow records it with a step of its own). */
  ended?: boolean;
}

/** What a flow node knows of its conversation. */
export interface ConversationNodeContext {
  conversationId: string;
  agentId: string;
  /** The turn the node runs in (0: the greeting at the start). */
  turn: number;
  /** The flow the node belongs to; null for the agent's own default reply. */
  flowId: number | null;
  /** The version of that flow the turn runs. */
  flowVersion?: number;
  /** The user's message of this turn (what RESPONSE_AI captures from); absent in the greeting. */
  message?: string;
  /** The run of the conversation workflow, which the transcript links to. */
  temporalRunId: string;
}

/** A message a flow node sent to the conversation's user, as the transcript holds it. */
export interface SentMessage {
  id: string;
  /** `operator`: a person of the account writing in a handed-off conversation (`POST .../operator-messages`). */
  author: MessageAuthor;
  text: string;
  turn: number;
  flowId: number | null;
  /** The version of the flow whose node said it (null: not said by a flow's node, or before versions). */
  flowVersion: number | null;
  nodeId: string | null;
  credits: number;
  /** The run of the conversation workflow that wrote it (with `conversation:<id>`, the turn's Temporal execution). */
  temporalRunId: string | null;
  /** A widget visitor's message: the page it was written on and the browser's user agent; an operator's: who wrote it. */
  metadata?: MessageMetadata | null;
  /** The knowledge-base documents the message is grounded in (absent in messages recorded before citations). */
  citations?: Citation[];
  /** A message on a messaging network (WhatsApp, Messenger, Instagram): its id there and, for the agent's, where it stands. */
  delivery?: MessageDelivery;
  createdAt: string;
}

/** Where a message on a messaging network stands: `pending` until sent, then as the network reports it. */
export interface MessageDelivery {
  status: 'pending' | 'sent' | 'delivered' | 'read' | 'failed' | null;
  error: string | null;
  externalId: string | null;
}

/** Who wrote a message of a transcript. */
export type MessageAuthor = 'user' | 'agent' | 'operator';

/** What a message records beside its text: a widget visitor's page and user agent, an operator's id and name. */
export interface MessageMetadata {
  pageUrl?: string;
  userAgent?: string;
  operator?: { userId: number | null; name: string | null };
  /** A person's voice message on a messaging network: the text is its transcript. */
  voice?: boolean;
  /** An agent's reply: the tools the AI called before writing it, for the people who read the transcript. */
  toolCalls?: ToolCallNote[];
}

/** A tool the AI called: its name and the arguments it passed (long arguments cut to a summary). */
export interface ToolCallNote {
  name: string;
  arguments: unknown;
}

/** A knowledge-base document a message cites. */
export interface DocumentCitation {
  documentId: string;
  title: string;
}

/** A web page a message cites (the `web_search` system tool's results). */
export interface WebCitation {
  url: string;
  title: string;
}

export type Citation = DocumentCitation | WebCitation;

/**
 * What a node asks of its conversation once the turn's messages are said (the system tools, a SAY_AI's
 * `conversationAction`): end it (reason AGENT), or hand it to a person (status HANDED_OFF, the agent falls silent).
 */
export type ConversationAction = { type: 'END' } | { type: 'HANDOFF'; reason?: string };

/**
 * What a node answers. `output` becomes the runtime variable `{<nodeId>}` (an API node's output is its response
 * body, parsed when JSON; nodes with `captureVariables` may answer `{ captures: { name: value } }`). `handle` is the
 * output port to follow, e.g. the id of the condition that matched; `default` when omitted.
 */
export interface NodeOutcome {
  output?: unknown;
  handle?: string;
  /** AI credits the node spent (AI nodes); 0 when omitted. */
  aiCredits?: number;
  /** In a conversation: what the turn does once its messages are said (end the conversation, hand it off). */
  conversationActions?: ConversationAction[];
  /** Messages the node sent to the conversation's user (SAY_AI), in order. */
  messages?: SentMessage[];
  /**
   * The walk pauses at this node (a conversation's RESPONSE_AI waiting for the user's answer): the interpreter
   * records nothing for it and answers `suspendedAt`, so the next turn can resume there.
   */
  suspend?: boolean;
  /**
   * Set instead of an output when the node needs an AI call before it can go on: the workflow makes the call as an
   * `aiCall` activity and runs the node's `finish` step with the reply appended to `aiReplies` (runs started before
   * steps: executes the node again).
   */
  aiCall?: AiCallRequest;
  /** With `aiCall`, from an AI node's steps: what its `finish` step gets back with the reply (`ExecuteNodeInput.aiState`). */
  aiState?: unknown;
  /** What the activity did of the ledger steps it carried. */
  ledger?: NodeLedgerOutcome;
}

/** One executed node, in execution order. */
export interface NodeResult {
  nodeId: string;
  alias: string;
  type: string;
  success: boolean;
  error?: string;
  /** The node's output; in a run's result, one too large to keep is replaced by an `OutputSummary`. */
  output?: unknown;
  aiCredits?: number;
  /** ISO time the node finished (when the interpreter was given a clock). */
  createdAt?: string;
}

/** Stands for an output too large to keep in a run's result or failure details. */
export interface OutputSummary {
  truncated: true;
  /** Size of the whole output as JSON. */
  bytes: number;
  /** The start of its JSON text. */
  preview: string;
}

export interface RunResult {
  successful: boolean;
  /** Why the run failed: the node that failed (or would have been executed) and the message. */
  error?: { nodeId: string; message: string };
  /** Executed nodes, BREAK and ITERATION included. */
  steps: number;
  nodeResults: NodeResult[];
  /** Declared variables of the automation at the end of the run (initial values and captures). */
  variables: Record<string, unknown>;
  /** The node where the walk paused (a node answered `suspend`); absent when it ran to an end. */
  suspendedAt?: string;
}

/** What a run log lists besides Temporal's own status and times; set as the execution's memo when the run ends. */
export interface RunMemo {
  successful: boolean;
  operations: number;
  aiCredits: number;
  error: string | null;
  insufficientCredits: boolean;
  preventedLoop: boolean;
}

/** The result of a run, also the details of the failure of an unsuccessful one. */
export interface AutomationRunResult extends RunResult {
  aiCredits: number;
  insufficientCredits: boolean;
  preventedLoop: boolean;
}

/**
 * The summary of a node's activity: the Temporal UI shows it on the activity (or on the local activity's marker),
 * and run logs read from it which node a local activity executed (integrations/temporal/run-history.ts).
 */
export const nodeSummary = (node: ExecuteNodeInput['node']) => `${node.type} ${node.nodeId}${node.alias ? ` (${node.alias})` : ''}`;
