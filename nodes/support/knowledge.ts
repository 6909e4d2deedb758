/**
 * Knowledge bases for AI nodes: the ids a node may search (its own `knowledgeBaseIds` and, in a conversation, its
 * agent's), automatic retrieval for a reply written from a prompt (SAY_AI, the agent's default reply), and the
 * `search_knowledge` tool of TOOLS_AI. Passages reach the AI call by id and score only (`ChatMessage.passages`).
 * A knowledge base with `multiQuery` on has each question reworded first (`search`): that call is made in-process and
 * charged to the account, and recorded with its charge, so a retried step neither asks nor pays again; both retrievals
 * run once per execution (`prepare` and each tool call are recorded).
 */
import { AgentConfig } from '../../db/agents/agent-config.entity.js';
import { CONFIG_KIND } from '../../db/agents/agent-defaults.js';
import { recordedQueryRewriter } from '../../integrations/knowledge/query-rewrite.js';
import { retrieve, type RetrievedPassage } from '../../integrations/knowledge/retrieval.js';
import { groundingInstruction, passageRefs } from '../../integrations/knowledge/grounding.js';
import type { ChatMessage } from '../../lib/runtime/ai-call.js';
import type { Citation, ExecuteNodeInput } from '../../lib/runtime/contract.js';
import type { ExecutionContext } from '../node-module.js';
import type { RunnableTool } from './ai-tools/runnable-tool.js';

/** Passages a reply is grounded in. */
export const GROUNDING_PASSAGES = 4;

const idsIn = (value: unknown): number[] => (Array.isArray(value) ? value.filter((v): v is number => Number.isInteger(v)) : []);

/** The knowledge bases the node searches: its own, and its agent's in a conversation. */
export async function knowledgeBaseIdsOf(input: ExecuteNodeInput, context: Pick<ExecutionContext, 'orm'>): Promise<number[]> {
  const own = idsIn(input.data.knowledgeBaseIds);
  const agentId = input.conversation?.agentId;
  const setting = agentId ? await context.orm.em.fork().findOne(AgentConfig, { agent: agentId, kind: CONFIG_KIND.setting }) : null;
  return [...new Set([...own, ...idsIn(setting?.values.knowledgeBaseIds)])];
}

/** The passages of these knowledge bases for a question, its rewordings' too when one of them has `multiQuery` on. */
function search(input: ExecuteNodeInput, context: ExecutionContext, knowledgeBaseIds: number[], query: string): Promise<RetrievedPassage[]> {
  const em = context.orm.em.fork();
  return retrieve(em, context.ai.provider, {
    accountId: input.accountId,
    knowledgeBaseIds,
    query,
    topK: GROUNDING_PASSAGES,
    signal: context.signal,
    rewrite: recordedQueryRewriter(context.ai, em, input.accountId, input.executionKey),
  });
}

const sourcesOf = (passages: RetrievedPassage[]): Citation[] => passages.map((p) => ({ documentId: p.documentId, title: p.title }));

/**
 * The grounding of a reply to `question`: a system message with the instruction and the passages (by id), and the
 * source of each numbered passage (what a reply's [n] cites). Null when the node has no knowledge base.
 */
export async function groundingFor(
  input: ExecuteNodeInput,
  context: ExecutionContext,
  question: string | undefined,
): Promise<{ message: ChatMessage; sources: Citation[] } | null> {
  const knowledgeBaseIds = await knowledgeBaseIdsOf(input, context);
  if (!knowledgeBaseIds.length || !question?.trim()) return null;
  const passages = await search(input, context, knowledgeBaseIds, question);
  return {
    message: { role: 'system', content: groundingInstruction(passages.length > 0), passages: passageRefs(passages) },
    sources: sourcesOf(passages),
  };
}

/** What a `search_knowledge` call answers the model (before the activity adds the passages' text). */
export interface KnowledgeToolResult {
  passages: { n: number; chunkId: string; score: number; documentId: string; title: string }[];
}

export function isKnowledgeResult(result: unknown): result is KnowledgeToolResult {
  return typeof result === 'object' && result !== null && Array.isArray((result as KnowledgeToolResult).passages);
}

/** The `search_knowledge` tool over the node's knowledge bases; none when it has none. */
export async function knowledgeTools(input: ExecuteNodeInput, context: ExecutionContext): Promise<RunnableTool[]> {
  const knowledgeBaseIds = await knowledgeBaseIdsOf(input, context);
  if (!knowledgeBaseIds.length) return [];
  return [
    {
      definition: {
        name: 'search_knowledge',
        description: `Searches the knowledge base for passages that answer a question. ${groundingInstruction(true)}`,
        parameters: {
          type: 'object',
          required: ['query'],
          properties: { query: { type: 'string', description: 'The question, in words the documents would use' } },
        },
      },
      // Recorded per call: a step run again (a retry, a run from before steps) must see the same passages.
      run: (args, part) =>
        context.onceFor(part, async (): Promise<KnowledgeToolResult> => {
          const passages = await search(input, context, knowledgeBaseIds, String(args.query ?? ''));
          return {
            passages: passages.map((p, i) => ({
              n: i + 1,
              chunkId: p.chunkId,
              score: passageRefs([p])[0]!.score,
              documentId: p.documentId,
              title: p.title,
            })),
          };
        }),
    },
  ];
}
