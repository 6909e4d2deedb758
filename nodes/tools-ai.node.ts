/**
 * TOOLS_AI: the model chooses among custom tools (real HTTP calls), table tools on the selected record types (row
 * searches and writes through the row services) and follows the playbooks' instructions. Tool calls run and their
 * results go back to the model, for at most `MAX_TOOL_ROUNDS` rounds; the output is the final answer, the calls
 * made, and the values captured from the exchange. In a conversation the model answers from the recent transcript
 * and its final answer is said to the user.
 *
 * In AI steps: `prepare` builds the tools and the first chat call; each `finish` runs the tool calls of the reply
 * just made and asks for the next call, or, at the answer, asks for the capture call (and its repair) and then
 * answers the output.
 */
import type { AiCallModel, AiReply, ChatCall, ChatMessage } from '../lib/runtime/ai-call.js';
import { askCaptures, captureVariablesOf, readCaptures, text } from './support/ai-node-support.js';
import { askAi, creditsOf, lastReply, nodeModel, within } from './support/ai-steps.js';
import { recentTranscript, say } from './support/conversation-io.js';
import { customTools } from './support/ai-tools/custom-tools.js';
import type { RunnableTool } from './support/ai-tools/runnable-tool.js';
import { tableTools } from './support/ai-tools/table-tools.js';
import { knowledgeTools } from './support/knowledge.js';
import { actionsOf, SYSTEM_TOOLS, systemToolNames, systemTools } from './support/ai-tools/system-tools.js';
import { parseArguments, runToolCalls, toolMessage } from './support/ai-tools/tool-messages.js';
import { citationsIn } from '../integrations/knowledge/grounding.js';
import type { Citation, ExecuteNodeInput, NodeOutcome } from '../lib/runtime/contract.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { notFound, type NodeCheck } from './checks/check-context.js';
import {
  CAPTURE_VARIABLES,
  DEFAULT_HANDLES,
  MODEL_FIELDS,
  idList,
  type AiNodeSteps,
  type AiStepResult,
  type ExecutionContext,
  type NodeModule,
} from './node-module.js';

/** Model turns that may call tools before the node must have its answer. */
export const MAX_TOOL_ROUNDS = 5;

const SYSTEM = 'You are an automation step. Use the tools when they help, then answer briefly with what you did or found.';

/**
 * What `finish` needs besides the replies, kept small since it travels through the run's history: the model, the
 * chat before the first tool call, and what each tool call of each round answered. The rest is rebuilt from the
 * replies (`exchangeOf`): round n's reply is the n-th, the answer the one after the last round. While the answer's
 * values are captured, `captureTries` counts the capture call's tries (the second is its repair).
 */
interface ToolsAiState {
  model: AiCallModel;
  opening: ChatMessage[];
  results: unknown[][];
  captureTries?: number;
}

/** A tool call as the output lists it. */
interface ToolCallMade {
  name: string;
  arguments: unknown;
  result: unknown;
}

/** The node's tools: the custom tools, the table tools, `search_knowledge` and the system tools it offers. */
async function toolsOf(input: ExecuteNodeInput, context: ExecutionContext): Promise<RunnableTool[]> {
  const em = context.orm.em.fork();
  const selected = ids(input, 'selectedRecordTypes') as { id: number }[];
  return [
    ...(await customTools(em, input.accountId, ids(input, 'customToolIds'), context)),
    ...(await tableTools(em, input.accountId, selected, input.chain, context)),
    ...(await knowledgeTools(input, context)),
    ...systemTools(input, context, await systemToolNames(input, context, input.data.systemTools)),
  ];
}

const ids = (input: ExecuteNodeInput, field: string) => (Array.isArray(input.data[field]) ? (input.data[field] as unknown[]) : []);

/** The chat call with the exchange so far, offering `tools`. */
const chatCall = (messages: ChatMessage[], tools: RunnableTool[]): ChatCall => ({ kind: 'chat', messages, tools: tools.map((t) => t.definition) });

/**
 * The exchange so far, from the state and the replies: the chat (each round's reply and its tools' answers after the
 * opening), the calls made, and the sources the answers numbered (passages, pages), which the answer's [n] cites.
 */
function exchangeOf(state: ToolsAiState, replies: AiReply[]): { messages: ChatMessage[]; calls: ToolCallMade[]; sources: Citation[] } {
  const messages = [...state.opening];
  const calls: ToolCallMade[] = [];
  const sources: Citation[] = [];
  state.results.forEach((results, round) => {
    const reply = replies[round]!;
    messages.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
    reply.toolCalls.forEach((call, index) => {
      calls.push({ name: call.name, arguments: parseArguments(call.arguments) ?? call.arguments, result: results[index] });
      messages.push(toolMessage(call.id, results[index], sources));
    });
  });
  return { messages, calls, sources };
}

/** The output: the answer, the calls and the captures; in a conversation the answer is said to the user. */
async function answered(
  input: ExecuteNodeInput,
  context: ExecutionContext,
  replies: AiReply[],
  state: ToolsAiState,
  captures: Record<string, unknown>,
): Promise<NodeOutcome> {
  const answer = replies[state.results.length]!.content;
  const { calls, sources } = exchangeOf(state, replies);
  const output = { answer, toolCalls: calls, captures };
  const credits = creditsOf(replies);
  // In a conversation the answer is the agent's message to the user; ending or handing off is the turn's to do.
  const actions = input.conversation ? actionsOf(calls) : [];
  const acting = actions.length ? { conversationActions: actions } : {};
  if (input.conversation && answer.trim()) {
    return { output, messages: [await say(input, context, answer.trim(), credits, citationsIn(answer, sources))], aiCredits: credits, ...acting };
  }
  return { output, aiCredits: credits, ...acting };
}

/** At the answer: the capture call over the whole exchange when the node captures, else the output. */
async function atAnswer(
  input: ExecuteNodeInput,
  context: ExecutionContext,
  replies: AiReply[],
  state: ToolsAiState,
): Promise<AiStepResult<ToolsAiState>> {
  const variables = captureVariablesOf(input.data);
  if (!variables.length) return answered(input, context, replies, state, {});
  return within(askCaptures(state.model, variables, '', captureSource(state, replies)), (capture) => ({ ...state, captureTries: capture.tries }));
}

/** What the captures are read from: the exchange after the system message, and the answer. */
function captureSource(state: ToolsAiState, replies: AiReply[]): string {
  const { messages } = exchangeOf(state, replies);
  const answer = replies[state.results.length]!.content;
  return (
    messages
      .slice(1)
      .map((m) => `${m.role}: ${m.content}`)
      .join('\n') + `\nassistant: ${answer}`
  );
}

const toolsAiSteps: AiNodeSteps<ToolsAiState> = {
  async prepare(input, context) {
    const { data } = input;
    const model = await nodeModel(input, context, 'TEXT');
    const tools = await toolsOf(input, context);
    const playbookIds = ids(input, 'playbookIds');
    const playbooks = playbookIds.length
      ? await context.orm.em.fork().find(AgentResource, { account: input.accountId, kind: 'PLAYBOOK', id: { $in: playbookIds.map(Number) } })
      : [];
    const system = [SYSTEM, text(data.instructions), ...playbooks.map((p) => `Playbook "${p.name}":\n${text(p.values.instructions)}`)];
    // In a conversation the model answers the user from the recent transcript; in a workflow, the node's prompt.
    const opening: ChatMessage[] = [
      { role: 'system', content: system.filter(Boolean).join('\n\n') },
      ...(input.conversation
        ? await recentTranscript(context, input.conversation.conversationId)
        : [{ role: 'user' as const, content: text(data.prompt) || text(data.instructions) }]),
    ];
    const ask = askAi(model, chatCall(opening, tools), null);
    return { ...ask, state: { model: ask.ask.model, opening, results: [] } };
  },

  async finish(input, context, replies, state) {
    const reply = lastReply(replies);
    if (state.captureTries) {
      const capture = askCaptures(state.model, captureVariablesOf(input.data), '', captureSource(state, replies));
      const read = readCaptures({ ...capture.state, tries: state.captureTries }, reply);
      if ('captures' in read) return answered(input, context, replies, state, read.captures);
      return within(read, (repair) => ({ ...state, captureTries: repair.tries }));
    }
    if (!reply.toolCalls.length) return atAnswer(input, context, replies, state);
    // The model called tools: run them (each call's side effect once: a retried step, or a run from before steps,
    // runs this again) and ask it again with their answers, unless that was its last round.
    const round = state.results.length + 1;
    const tools = await toolsOf(input, context);
    const results = [...state.results, await runToolCalls(tools, reply.toolCalls, round)];
    if (round >= MAX_TOOL_ROUNDS) throw new NodeError(`The AI model was still calling tools after ${MAX_TOOL_ROUNDS} rounds`, 'TooManyToolRounds');
    const next = { ...state, results };
    return askAi(state.model, chatCall(exchangeOf(next, replies).messages, tools), next);
  },
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
  scopes: ['automation', 'flow'],
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
  ai: toolsAiSteps,
};
