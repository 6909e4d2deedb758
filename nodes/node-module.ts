/**
 * The shape of a node type: everything agentry knows about one type is declared in its module
 * (`<type>.node.ts`), and `registry.ts` lists the modules. The API documents and validates `data` with `data`;
 * the graph service checks saved nodes and edges with `checks` and `handles`; a run carries the facts
 * (`interpolated`, `captures`, `local`, `entry`) in its input; the `executeNode` activity calls `execute`.
 */
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import type { OutboxNotifier } from '../db/automations/outbox-notifier.js';
import type { FileStore } from '../db/tables/files/file-store.js';
import type { AutomationEvent } from '../lib/events/event-match.js';
import type { CaptureKind, ExecuteNodeInput, NodeOutcome } from '../lib/runtime/contract.js';
import type { AutomationSchedules } from '../lib/schedules/automation-schedules.js';
import type { NodeCheck } from './checks/check-context.js';
import type { AiGateway } from '../integrations/ai/ai-gateway.js';
import type { AiCallModel, AiReply, ChatCall, TranscriptionCall } from '../lib/runtime/ai-call.js';
import type { MessagingConfig } from '../integrations/messaging/cloud-api-messaging.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { OutboundFetch } from '../integrations/outbound/outbound-fetch.js';

export type { NodeCheck, NodeCheckContext } from './checks/check-context.js';

/** A JSON Schema object (the subset ajv and OpenAPI 3.1 share). */
export type JsonSchema = Record<string, unknown>;

/** Where a node type may appear: account-level automations, agents' conversation flows, or both. */
export type NodeScope = 'automation' | 'flow';

export interface ExecutorDeps {
  orm: Orm;
  /** Temporal client of the worker process. */
  temporal: Client;
  /** The Temporal Schedules of automations, for nodes that change another automation's status. */
  schedules: AutomationSchedules;
  /** Timeout of outgoing HTTP calls. */
  httpTimeoutMs: number;
  /** The client for every call to a URL a user saved: it refuses what the outbound address policy refuses. */
  outbound: OutboundFetch;
  /** The AI gateway (its provider is null when none is configured: AI nodes then fail saying so). */
  ai: AiGateway;
  /** The messaging product's Cloud API of numbers without settings of their own (SEND_MESSAGING_MESSAGE); null when not configured. */
  messaging?: MessagingConfig | null;
  /** The search API of the `web_search` system tool (WEB_SEARCH_URL); null or absent: the tool is not offered. */
  webSearchUrl?: string | null;
  /** Opens the stored third-party secrets (numbers' Cloud API tokens); null when SETTINGS_ENCRYPTION_KEY is unset. */
  secrets?: SecretBox | null;
  /** Wakes the outbox dispatchers after a node that may have written events (row changes). */
  outbox?: OutboxNotifier;
  /** Where the bytes of record files are stored (a deleted record's files go with it). */
  files: FileStore;
  /**
   * What the worker does once a node succeeded, before its activity answers (activities/index.ts wires it): the
   * messaging networks send there at once what a conversation's node said.
   */
  afterNode?: AfterNode;
  /**
   * Whether `afterNode` sends the agent messages a conversation's node writes at once: `say` then holds back their
   * outbox delivery, the safety net should that send not happen.
   */
  sendsSaidAtOnce?: boolean;
}

/** A step after every successful node, in its activity (`signal`: the activity's cancellation); a throw fails the node. */
export type AfterNode = (input: ExecuteNodeInput, outcome: NodeOutcome, signal: AbortSignal) => Promise<void>;

/** What an executor gets besides its input: the activity's cancellation and the retry-safety helper. */
export interface ExecutionContext extends ExecutorDeps {
  /** Aborted when the run is cancelled (or the activity times out): pass it to outgoing calls. */
  signal: AbortSignal;
  /** Which attempt of this node execution this is (1 for the first). */
  attempt: number;
  /** The Temporal workflow id of the run. */
  temporalWorkflowId: string;
  /**
   * Runs a database side effect once per node execution: in one transaction, `effect` runs and its output is
   * recorded under the execution key; a later attempt of the same execution answers the recorded output instead.
   */
  once<T>(effect: (em: EntityManager) => Promise<T>): Promise<T>;
  /**
   * `once` for a node that makes several side effects (the tool calls of TOOLS_AI's rounds): each is recorded under
   * the execution key plus `part`, so a retried attempt that reaches the same part answers its recorded output.
   */
  onceFor<T>(part: string, effect: (em: EntityManager) => Promise<T>): Promise<T>;
  /**
   * `once` for an effect made only of writes in its transaction `em`, one round trip cheaper: the effect may run
   * again on a later attempt, its writes then rolled back and the recorded output answered. Never call anything
   * outside the database from it.
   */
  onceWrites<T>(effect: (em: EntityManager) => Promise<T>): Promise<T>;
}

/** Runs one node. Throw an `AppError` (4xx) or `NodeError` for a permanent failure; anything else is retried. */
export type NodeExecutor = (input: ExecuteNodeInput, context: ExecutionContext) => Promise<NodeOutcome>;

/**
 * An AI call a step of an AI node asks for (`askAi` in `support/ai-steps.ts` builds it): the catalog model and the
 * call, and `state`, what the next `finish` step needs besides the reply. `state` travels through the run's
 * Temporal history with the call: keep it JSON and small (not a whole document).
 */
export interface AiAsk<S = unknown> {
  ask: { model: AiCallModel; call: ChatCall | TranscriptionCall };
  state: S;
}

/** What an AI step answers: the node's outcome, or an AI call to make before the next `finish`. */
export type AiStepResult<S = unknown> = NodeOutcome | AiAsk<S>;

/**
 * An AI node in steps: `prepare` → AI call → `finish`, each an activity of its own that runs once per successful
 * attempt (a failed attempt is retried as a whole step, like any activity).
 *
 * - `prepare` does the node's reads and downloads and builds its AI call (`askAi`), with no side effects. When the
 *   node needs no AI call this time (a written message, plain-rule routing, no provider and a fallback) it answers
 *   the node's outcome instead and is the node's only step: its side effects then go through `context.once`.
 * - `finish` gets every reply so far (the last one answers the call just made) and the state passed on with the
 *   call; it turns the answer into the node's output and does the node's side effects. It may ask for one more call
 *   instead (a structured answer's repair, a second call on the answer, the next tool round); it then runs again
 *   with one reply more. Side effects before such a call (the tool calls a reply asked for) go through
 *   `context.onceFor(part, …)`, one part each: a failed attempt runs the whole step again, and so does the
 *   `executeNode` of runs started before steps, once per reply.
 *
 * The node's `aiCredits` are the credits of its replies unless a step sets them. Steps throw `NodeError` (or a 4xx
 * `AppError`) for permanent failures, like executors.
 */
export interface AiNodeSteps<S = any> {
  prepare(input: ExecuteNodeInput, context: ExecutionContext): Promise<AiStepResult<S>>;
  finish(input: ExecuteNodeInput, context: ExecutionContext, replies: AiReply[], state: S): Promise<AiStepResult<S>>;
}

export interface NodeModule {
  type: string;
  scopes: readonly NodeScope[];
  /** One line for the API reference. */
  summary: string;
  /**
   * JSON Schema of the node's `data` besides `type` (`type: object` and the `type` property are added by the
   * registry). It validates requests and documents the type in the OpenAPI document.
   */
  data: JsonSchema;
  /** Output ports an edge may leave from: a fixed list, or computed from the node's data (condition ids). */
  handles: readonly string[] | ((data: Record<string, unknown>) => string[]);
  /** Data fields filled from `{variables}` before the node runs (`headers[].value` steps into every item). */
  interpolated?: readonly string[];
  /** How the node's output is captured into declared variables. */
  captures?: CaptureKind;
  /**
   * May work for long (file downloads, OCR, tool calls): runs as a remote activity that heartbeats, so a dead
   * worker's node is retried elsewhere within seconds. Every other node runs as a local activity, in the workflow
   * task that reaches it: a run of such nodes costs Temporal one workflow task instead of three events per node.
   */
  remote?: boolean;
  /** Runs as a local activity unless this data field is filled (SAY_AI: a static message is local, a prompt is not). */
  localUnless?: string;
  /** A conversation pauses at this node until the user answers; the answer's turn runs it (RESPONSE_AI). */
  awaitsAnswer?: boolean;
  /** An entry node: its output is the delivered trigger payload; it has no executor. */
  entry?: boolean;
  /** The executor reads the trigger payload itself (`ExecuteNodeInput.triggerPayload`). */
  readsTriggerPayload?: boolean;
  /** For entry nodes started by outbox events: whether this node subscribes to `event`. */
  matchesEvent?: (data: Record<string, unknown>, event: AutomationEvent) => boolean;
  /** Save-time checks of the data beyond its schema (references to account resources, cross-field rules). */
  checks?: readonly NodeCheck[];
  /**
   * Absent: the node type is declared but does not run in this version (the node fails with a clear message), or
   * it is an AI node in `ai` steps.
   */
  execute?: NodeExecutor;
  /**
   * An AI node's steps (prepare → AI call → finish), run by the workflow as activities of their own. Runs started
   * before steps existed still execute the node (`executeNode`), which then runs the steps from its AI replies.
   */
  ai?: AiNodeSteps;
}

/** The schema of a model-using node's model fields (SPEC.md, AI model, "Use by type"). */
export const MODEL_FIELDS: Record<string, JsonSchema> = {
  aiModelId: { type: ['integer', 'null'], description: 'Id of an AI model (GET /ai-models); omitted: the default model of the type' },
  model: { type: ['string', 'null'], description: "Provider's model id (externalId), with aiVendor" },
  aiVendor: { type: ['string', 'null'], description: 'Vendor code such as OPENAI, with model' },
};

/** `captureVariables` items as sent: `{ name }` or `{ id }` of workflow variables. */
export const CAPTURE_VARIABLES: JsonSchema = {
  type: ['array', 'null'],
  maxItems: 100,
  items: {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string', minLength: 1 }, description: { type: 'string' } },
  },
  description: 'Variables the node captures into: { name } or { id } of workflow variables',
};

/** Ids of account resources, as node data lists them. */
export const idList = (what: string, item: JsonSchema = { type: ['string', 'integer'] }): JsonSchema => ({
  type: ['array', 'null'],
  maxItems: 500,
  items: item,
  description: `Ids of ${what} of the account`,
});

export const DEFAULT_HANDLES = ['default'] as const;
