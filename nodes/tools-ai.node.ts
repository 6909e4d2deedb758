/**
 * TOOLS_AI: the model chooses among custom tools (real HTTP calls), table tools on the selected record types (row
 * searches and writes through the row services) and follows the playbooks' instructions. Tool calls run and their
 * results go back to the model, for at most `MAX_TOOL_ROUNDS` rounds; the output is the final answer, the calls
 * made, and the values captured from the exchange. In a conversation the model answers from the recent transcript
 * and its final answer is said to the user.
 */
import type { ChatMessage } from '../integrations/ai/ai-provider.js';
import { aiForNode, captureVariablesOf, extractCaptures, text } from './support/ai-node-support.js';
import { recentTranscript, say } from './support/conversation-io.js';
import { customTools } from './support/ai-tools/custom-tools.js';
import type { RunnableTool } from './support/ai-tools/runnable-tool.js';
import { tableTools } from './support/ai-tools/table-tools.js';
import { knowledgeTools } from './support/knowledge.js';
import { actionsOf, SYSTEM_TOOLS, systemToolNames, systemTools } from './support/ai-tools/system-tools.js';
import { parseArguments, toolMessage } from './support/ai-tools/tool-messages.js';
import { citationsIn } from '../integrations/knowledge/grounding.js';
import type { Citation } from '../lib/runtime/contract.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { notFound, type NodeCheck } from './checks/check-context.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, idList, type NodeExecutor, type NodeModule } from './node-module.js';

/** Model turns that may call tools before the node must have its answer. */
export const MAX_TOOL_ROUNDS = 5;

const SYSTEM = 'You are an automation step. Use the tools when they help, then answer briefly with what you did or found.';

const executeToolsAi: NodeExecutor = async (input, context) => {
  const { data } = input;
  const em = context.orm.em.fork();
  const { session, model } = await aiForNode(input, context, 'TEXT');
  const ids = (field: string) => (Array.isArray(data[field]) ? (data[field] as unknown[]) : []);
  const selected = ids('selectedRecordTypes') as { id: number }[];
  const tools: RunnableTool[] = [
    ...(await customTools(em, input.accountId, ids('customToolIds'), context)),
    ...(await tableTools(em, input.accountId, selected, input.chain, context)),
    ...(await knowledgeTools(input, context)),
    ...systemTools(input, context, await systemToolNames(input, context, data.systemTools)),
  ];
  // Passages found by search_knowledge, numbered across the node's calls: what the answer's [n] cites.
  const sources: Citation[] = [];
  const playbooks = ids('playbookIds').length
    ? await em.find(AgentResource, { account: input.accountId, kind: 'PLAYBOOK', id: { $in: ids('playbookIds').map(Number) } })
    : [];
  const system = [SYSTEM, text(data.instructions), ...playbooks.map((p) => `Playbook "${p.name}":\n${text(p.values.instructions)}`)];
  // In a conversation the model answers the user from the recent transcript; in a workflow, the node's prompt.
  const messages: ChatMessage[] = [
    { role: 'system', content: system.filter(Boolean).join('\n\n') },
    ...(input.conversation
      ? await recentTranscript(context, input.conversation.conversationId)
      : [{ role: 'user' as const, content: text(data.prompt) || text(data.instructions) }]),
  ];
  const byName = new Map(tools.map((t) => [t.definition.name, t]));
  const calls: { name: string; arguments: unknown; result: unknown }[] = [];
  let answer: string | undefined;
  for (let round = 1; round <= MAX_TOOL_ROUNDS && answer === undefined; round++) {
    const reply = await session.chat(model, { messages, tools: tools.map((t) => t.definition) });
    if (!reply.toolCalls.length) {
      answer = reply.content;
      break;
    }
    messages.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
    for (const [index, call] of reply.toolCalls.entries()) {
      const args = parseArguments(call.arguments);
      const tool = byName.get(call.name);
      const result = !tool
        ? { error: `there is no tool ${call.name}` }
        : args
          ? await tool.run(args, `tool-${round}-${index}`)
          : { error: 'the arguments are not a JSON object' };
      calls.push({ name: call.name, arguments: args ?? call.arguments, result });
      messages.push(toolMessage(call.id, result, sources));
    }
  }
  if (answer === undefined) throw new NodeError(`The AI model was still calling tools after ${MAX_TOOL_ROUNDS} rounds`, 'TooManyToolRounds');
  const variables = captureVariablesOf(data);
  const exchange =
    messages
      .slice(1)
      .map((m) => `${m.role}: ${m.content}`)
      .join('\n') + `\nassistant: ${answer}`;
  const captures = variables.length ? await extractCaptures(session, model, variables, '', exchange) : {};
  const output = { answer, toolCalls: calls, captures };
  // In a conversation the answer is the agent's message to the user; ending or handing off is the turn's to do.
  const actions = input.conversation ? actionsOf(calls) : [];
  const acting = actions.length ? { conversationActions: actions } : {};
  if (input.conversation && answer.trim()) {
    return {
      output,
      messages: [await say(input, context, answer.trim(), session.credits, citationsIn(answer, sources))],
      aiCredits: session.credits,
      ...acting,
    };
  }
  return { output, aiCredits: session.credits, ...acting };
};

import { AgentResource } from '../db/agents/agent-resource.entity.js';
import { RecordType } from '../db/tables/record-type.entity.js';
import { NodeError } from '../lib/errors.js';

/** `selectedRecordTypes[].id`: record types of the account's Objects and Tables, the table tools the AI may use. */
const checkRecordTypes: NodeCheck = async (node, { em, accountId }) => {
  const selected = Array.isArray(node.data.selectedRecordTypes) ? (node.data.selectedRecordTypes as { id: number }[]) : [];
  if (!selected.length) return [];
  const found = await em.find(RecordType, { id: { $in: selected.map((s) => s.id) }, table: { account: accountId } }, { fields: ['id'] });
  const ids = new Set(found.map((r) => r.id));
  return selected.flatMap((s, i) => (ids.has(s.id) ? [] : [notFound(`selectedRecordTypes[${i}].id`, `no record type ${s.id} in this account`)]));
};

export const toolsAiNode: NodeModule = {
  type: 'TOOLS_AI',
  remote: true,
  scopes: ['workflow', 'flow'],
  summary: 'The AI chooses a tool to call (custom tools, table tools, system tools) and may capture values into variables',
  data: {
    properties: {
      instructions: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      prompt: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable (workflows)' },
      customToolIds: idList('custom tools'),
      playbookIds: idList('playbooks'),
      knowledgeBaseIds: idList('knowledge bases'),
      systemTools: {
        type: ['array', 'null'],
        maxItems: SYSTEM_TOOLS.length,
        uniqueItems: true,
        items: { enum: [...SYSTEM_TOOLS] },
        description:
          "System tools this node offers besides those the agent setting's systemToolSettings turns on (agentry extension); " +
          'in an automation only web_search applies',
      },
      selectedRecordTypes: {
        type: ['array', 'null'],
        maxItems: 100,
        items: { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } },
      },
      captureVariables: CAPTURE_VARIABLES,
      connectedAccountId: { type: ['integer', 'null'] },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['instructions', 'prompt'],
  captures: 'captureVariables',
  checks: [modelCheck('TEXT'), checkCaptureVariables, checkRecordTypes],
  execute: executeToolsAi,
};
