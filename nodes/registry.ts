/**
 * The node types: adding one is one module (`<type>.node.ts`, see `node-module.ts`) and one line in `NODE_MODULES`.
 * Everything else reads them from here: the API's request schemas and OpenAPI document (`nodeDataSchema`), the
 * graph service's checks and edge handles (`automationGraphRules`, `flowGraphRules`), the facts a run carries (`nodeFactsOf`), the outbox
 * dispatcher's event matching (`entryMatches`) and the `executeNode` activity (`nodeModule`).
 */
import type { GraphRules } from '../db/automations/graph-rules.js';
import type { Issue } from '../lib/errors.js';
import type { AutomationEvent } from '../lib/events/event-match.js';
import type { Graph, GraphNode } from '../lib/graph/graph.js';
import type { NodeFacts, NodeFactsByType } from '../lib/runtime/contract.js';
import { aiCaptureNode } from './ai-capture.node.js';
import { apiNode } from './api.node.js';
import { automationStatusNode } from './automation-status.node.js';
import { breakNode } from './break.node.js';
import { checkAccountReferences } from './checks/account-references.check.js';
import { allOf } from './checks/compose.js';
import { referencedVariables } from './checks/check-context.js';
import { unknownReferencesIn, valuesAt } from './checks/interpolation.js';
import { conditionalRoutingNode } from './conditional-routing.node.js';
import { createRecordActivityNode } from './create-record-activity.node.js';
import { dataTransformerNode } from './data-transformer.node.js';
import { dynamicTablesNode } from './dynamic-tables.node.js';
import { fileAnalysisNode } from './file-analysis.node.js';
import { iterationNode } from './iteration.node.js';
import type { JsonSchema, NodeCheck, NodeModule, NodeScope } from './node-module.js';
import { scheduledTriggerNode } from './scheduled-trigger.node.js';
import { sendMessageNode } from './send-message.node.js';
import { sendMessagingMessageNode } from './send-messaging-message.node.js';
import { toolsAiNode } from './tools-ai.node.js';
import { transcriptionNode } from './transcription.node.js';
import { triggerNode } from './trigger.node.js';
import { webhookNode } from './webhook.node.js';
import { startNode } from './start.node.js';
import { triggerIntentNode } from './trigger-intent.node.js';
import { sayAiNode } from './say-ai.node.js';
import { responseAiNode } from './response-ai.node.js';
import { routeFlowNode } from './route-flow.node.js';

export const NODE_MODULES: readonly NodeModule[] = [
  triggerNode,
  scheduledTriggerNode,
  webhookNode,
  apiNode,
  toolsAiNode,
  conditionalRoutingNode,
  aiCaptureNode,
  dataTransformerNode,
  dynamicTablesNode,
  createRecordActivityNode,
  iterationNode,
  breakNode,
  automationStatusNode,
  sendMessageNode,
  sendMessagingMessageNode,
  transcriptionNode,
  fileAnalysisNode,
  startNode,
  triggerIntentNode,
  sayAiNode,
  responseAiNode,
  routeFlowNode,
];

const BY_TYPE = new Map(NODE_MODULES.map((module) => [module.type, module]));

export function nodeModule(type: string): NodeModule | undefined {
  return BY_TYPE.get(type);
}

/** Node types of a kind of graph, in registry order. */
export function nodeTypesOf(scope: NodeScope): string[] {
  return NODE_MODULES.filter((module) => module.scopes.includes(scope)).map((module) => module.type);
}

/** Entry node types a run may start from (workflows' manual runs start from the first of the graph). */
export const ENTRY_NODE_TYPES: readonly string[] = NODE_MODULES.filter((module) => module.entry).map((module) => module.type);

/** Entry node types that outbox events start. */
export const EVENT_ENTRY_TYPES: readonly string[] = NODE_MODULES.filter((module) => module.matchesEvent).map((module) => module.type);

/** Whether an entry node of a live graph subscribes to `event`. */
export function entryMatches(node: GraphNode, event: AutomationEvent): boolean {
  return nodeModule(node.type)?.matchesEvent?.(node.data, event) ?? false;
}

function factsOf(module: NodeModule): NodeFacts {
  return {
    interpolated: module.interpolated ?? [],
    ...(module.captures ? { captures: module.captures } : {}),
    ...(!module.remote && !module.localUnless && !module.entry ? { local: true } : {}),
    ...(module.entry ? { entry: true } : {}),
    ...(module.readsTriggerPayload ? { readsTriggerPayload: true } : {}),
    ...(module.localUnless ? { localUnless: module.localUnless } : {}),
    ...(module.awaitsAnswer ? { awaitsAnswer: true } : {}),
    ...(module.ai ? { aiSteps: true } : {}),
  };
}

/** The facts of the node types `graph` uses, for a run's input. */
export function nodeFactsOf(graph: Graph): NodeFactsByType {
  const facts: Record<string, NodeFacts> = {};
  for (const node of graph.nodes) {
    const module = nodeModule(node.type);
    if (module && !facts[node.type]) facts[node.type] = factsOf(module);
  }
  return facts;
}

/** The whole JSON Schema of a node type's `data`: its module's schema with `data.type` repeating the type. */
export function nodeDataSchema(module: NodeModule): JsonSchema {
  const { properties = {}, ...rest } = module.data as { properties?: Record<string, JsonSchema> };
  return {
    title: `${module.type} node data`,
    description: module.summary,
    type: 'object',
    ...rest,
    properties: { type: { const: module.type, description: 'Repeats the node type' }, ...properties },
  };
}

/** Every node type's checks, then the reference checks every node gets (account resources, variables). */
const CHECKS = new Map<string, NodeCheck>(
  NODE_MODULES.map((module) => {
    const references: NodeCheck = (node, ctx) => unknownReferencesIn(module.interpolated ?? [], node.data, ctx);
    return [module.type, allOf(...(module.checks ?? []), checkAccountReferences, references)];
  }),
);

function handlesOf(node: GraphNode): readonly string[] {
  const handles = nodeModule(node.type)?.handles ?? [];
  return typeof handles === 'function' ? handles(node.data) : handles;
}

/** The names a node reads in its interpolated fields (before any path) and the variables it captures into. */
function variablesUsed(node: GraphNode): string[] {
  const module = nodeModule(node.type);
  const read = (module?.interpolated ?? []).flatMap((field) =>
    valuesAt(node.data, field.split('.'), '').flatMap(([, value]) => referencedVariables(value)),
  );
  const names = read.map((reference) => /^[^.[]+/.exec(reference)![0]);
  if (module?.captures === 'captureVariables' && Array.isArray(node.data.captureVariables)) {
    names.push(...(node.data.captureVariables as { name?: unknown }[]).map((v) => v?.name).filter((n): n is string => typeof n === 'string'));
  }
  if (module?.captures === 'apiVariables' && Array.isArray(node.data.variables)) {
    names.push(...(node.data.variables as { key?: unknown }[]).map((v) => v?.key).filter((n): n is string => typeof n === 'string'));
  }
  return [...new Set(names)];
}

function graphRulesOf(scope: NodeScope, refused?: Record<string, string>): GraphRules {
  return {
    types: nodeTypesOf(scope),
    ...(refused ? { refused } : {}),
    check: async (node, ctx): Promise<Issue[]> => (await CHECKS.get(node.type)?.(node, ctx)) ?? [],
    handles: handlesOf,
    variablesUsed,
  };
}

/** The rules the graph service of automations works with. */
export const automationGraphRules: GraphRules = graphRulesOf('automation');

/** The rules of agents' conversation flows (SPEC.md, Flow node types). */
export const flowGraphRules: GraphRules = graphRulesOf('flow', {
  DYNAMIC_TABLES:
    'DYNAMIC_TABLES is automation-only and unavailable in flows: read or write records with a TOOLS_AI node and table tools (selectedRecordTypes)',
});
