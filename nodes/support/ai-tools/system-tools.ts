/**
 * The system tools of an agent (SPEC.md: the agent setting's `systemToolSettings`), offered to the AI nodes of a
 * conversation turn (TOOLS_AI, the agent's default reply) when the setting enables them, and to a TOOLS_AI node that
 * names them in its `systemTools`:
 *
 * - `end_conversation`: the conversation ends once the turn's messages are said (reason AGENT);
 * - `handoff_to_human`: the conversation goes to a person (status HANDED_OFF) once the turn's messages are said;
 * - `collect_feedback`: records the rating (1-5) the user gave, firing FEEDBACK_CAPTURED; without one, the model is
 *   told to ask for it (the user's answer comes in the next turn, whose model calls the tool with it);
 * - `web_search`: the search API of WEB_SEARCH_URL; the reply cites the pages it uses as [n].
 *
 * Ending and handing off are the conversation workflow's to do (its state and the row must agree): a tool call only
 * answers the model and becomes a `ConversationAction` of the node's outcome (`actionsOf`), which the turn applies.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentConfig } from '../../../db/agents/agent-config.entity.js';
import { CONFIG_KIND } from '../../../db/agents/agent-defaults.js';
import { saveFeedback } from '../../../db/agents/conversations.service.js';
import { searchWeb, WebSearchError, type WebResult } from '../../../integrations/search/web-search.js';
import type { ConversationAction, ExecuteNodeInput } from '../../../lib/runtime/contract.js';
import type { ExecutionContext } from '../../node-module.js';
import type { RunnableTool } from './runnable-tool.js';

export const SYSTEM_TOOLS = ['end_conversation', 'handoff_to_human', 'collect_feedback', 'web_search'] as const;
export type SystemToolName = (typeof SYSTEM_TOOLS)[number];

/** The agent setting's switch of each tool (`systemToolSettings`). */
const SETTING_OF: Record<SystemToolName, string> = {
  end_conversation: 'endConversation',
  handoff_to_human: 'handoffToHuman',
  collect_feedback: 'collectFeedback',
  web_search: 'webSearch',
};

/** Tools that act on the conversation: not offered outside one (an automation's TOOLS_AI). */
const IN_CONVERSATION_ONLY = new Set<SystemToolName>(['end_conversation', 'handoff_to_human', 'collect_feedback']);

/** What a `web_search` call answers the model (numbered by the node before the model reads it). */
export interface WebSearchToolResult {
  webResults: WebResult[];
}

export function isWebSearchResult(result: unknown): result is WebSearchToolResult {
  return typeof result === 'object' && result !== null && Array.isArray((result as WebSearchToolResult).webResults);
}

/** The names of the system tools on for this node: the agent setting's (in a conversation) and the node's own list. */
export async function systemToolNames(input: ExecuteNodeInput, context: Pick<ExecutionContext, 'orm'>, own: unknown = []): Promise<SystemToolName[]> {
  const names = new Set<SystemToolName>((Array.isArray(own) ? own : []).filter((n): n is SystemToolName => SYSTEM_TOOLS.includes(n)));
  const agentId = input.conversation?.agentId;
  if (agentId) {
    const setting = await context.orm.em.fork().findOne(AgentConfig, { agent: agentId, kind: CONFIG_KIND.setting }, { fields: ['values'] });
    const switches = (setting?.values.systemToolSettings ?? {}) as Record<string, unknown>;
    for (const name of SYSTEM_TOOLS) if (switches[SETTING_OF[name]] === true) names.add(name);
  }
  return SYSTEM_TOOLS.filter((name) => names.has(name) && (input.conversation || !IN_CONVERSATION_ONLY.has(name)));
}

/** The runnable system tools of `names` (web_search only when WEB_SEARCH_URL is configured). */
export function systemTools(
  input: ExecuteNodeInput,
  context: Pick<ExecutionContext, 'onceFor' | 'signal' | 'httpTimeoutMs' | 'webSearchUrl'>,
  names: SystemToolName[],
): RunnableTool[] {
  const conversationId = input.conversation?.conversationId;
  const tools: RunnableTool[] = [];
  for (const name of names) {
    if (name === 'end_conversation')
      tools.push({
        definition: {
          name,
          description:
            'Ends the conversation after your reply. Call it when the user says goodbye or has nothing more to ask, then write a short closing message.',
          parameters: { type: 'object', properties: {} },
        },
        run: async () => ({ ok: true, note: 'The conversation ends after your reply: write a short closing message.' }),
      });
    if (name === 'handoff_to_human')
      tools.push({
        definition: {
          name,
          description:
            'Hands the conversation to a person of the team, who replies here instead of you. Call it when the user asks for a human, ' +
            'or when you cannot help. The user is told; you may add a short message.',
          parameters: { type: 'object', properties: { reason: { type: 'string', description: 'Why, in a few words, for the person taking over' } } },
        },
        run: async () => ({ ok: true, note: 'A person takes over after your reply; the user is told.' }),
      });
    if (name === 'collect_feedback' && conversationId)
      tools.push({
        definition: {
          name,
          description:
            "Records the user's rating of this conversation, from 1 (poor) to 5 (excellent), with an optional comment. Call it only " +
            'with a rating the user gave; if they have not rated yet, ask them to rate the conversation from 1 to 5 and call it with their answer.',
          parameters: {
            type: 'object',
            properties: {
              rating: { type: 'integer', minimum: 1, maximum: 5, description: "The user's rating, 1 to 5" },
              comment: { type: 'string', description: "The user's words about the conversation, if any" },
            },
          },
        },
        run: async (args, part) => {
          const rating = Number(args.rating);
          if (!Number.isInteger(rating) || rating < 1 || rating > 5)
            return {
              error: 'No rating from 1 to 5 yet: ask the user to rate this conversation from 1 to 5, and call collect_feedback with their answer.',
            };
          const comment = typeof args.comment === 'string' && args.comment.trim() ? args.comment.trim().slice(0, 5000) : null;
          // Once per tool call: FEEDBACK_CAPTURED fires once however often the node's activity runs again.
          await context.onceFor(part, async (tx: EntityManager) => (await saveFeedback(tx, conversationId, { rating, comment }), null));
          return { ok: true, recorded: { rating, comment } };
        },
      });
    if (name === 'web_search' && context.webSearchUrl) {
      const url = context.webSearchUrl;
      tools.push({
        definition: {
          name,
          description: 'Searches the web. Cite each result you use as [n], its number; prefer what the results say over what you remember.',
          parameters: { type: 'object', required: ['query'], properties: { query: { type: 'string', description: 'What to search for' } } },
        },
        // Recorded per call: a node run again after its next AI call shows the model the same results.
        run: (args, part) =>
          context.onceFor(part, async (): Promise<WebSearchToolResult | { error: string }> => {
            const query = String(args.query ?? '').trim();
            if (!query) return { error: 'query is empty' };
            try {
              return { webResults: await searchWeb(url, query, { signal: context.signal, timeoutMs: context.httpTimeoutMs }) };
            } catch (error) {
              if (error instanceof WebSearchError) return { error: `The web search failed: ${error.message}` };
              throw error;
            }
          }),
      });
    }
  }
  return tools;
}

/** What the system tools called with success ask of the conversation, in call order. */
export function actionsOf(calls: { name: string; arguments?: unknown; result: unknown }[]): ConversationAction[] {
  const actions: ConversationAction[] = [];
  for (const call of calls) {
    const ok = typeof call.result === 'object' && call.result !== null && (call.result as { ok?: unknown }).ok === true;
    if (!ok) continue;
    if (call.name === 'end_conversation') actions.push({ type: 'END' });
    if (call.name === 'handoff_to_human') {
      const reason = (call.arguments as { reason?: unknown } | null)?.reason;
      actions.push({ type: 'HANDOFF', ...(typeof reason === 'string' && reason.trim() ? { reason: reason.trim().slice(0, 500) } : {}) });
    }
  }
  return actions;
}
