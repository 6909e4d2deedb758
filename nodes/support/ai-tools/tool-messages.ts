/**
 * A tool's answer as the model reads it. Sources a reply may cite are numbered across the node's tool calls: the
 * passages of `search_knowledge` (by id: the `aiCall` activity adds their text) and the pages of `web_search`;
 * `sources[n - 1]` is what a reply's [n] cites (`citationsIn`).
 */
import type { ChatMessage, ToolCall } from '../../../lib/runtime/ai-call.js';
import type { Citation } from '../../../lib/runtime/contract.js';
import { isKnowledgeResult } from '../knowledge.js';
import type { RunnableTool } from './runnable-tool.js';
import { isWebSearchResult } from './system-tools.js';

export function toolMessage(toolCallId: string, result: unknown, sources: Citation[]): ChatMessage {
  if (isWebSearchResult(result)) {
    const results = result.webResults.map((r) => {
      sources.push({ url: r.url, title: r.title || r.url });
      return { n: sources.length, ...r };
    });
    return { role: 'tool', toolCallId, content: JSON.stringify({ results }) };
  }
  if (!isKnowledgeResult(result)) return { role: 'tool', toolCallId, content: JSON.stringify(result) };
  const passages = result.passages.map((p) => {
    sources.push({ documentId: p.documentId, title: p.title });
    return { ...p, n: sources.length };
  });
  return {
    role: 'tool',
    toolCallId,
    content: JSON.stringify({ passages: passages.map(({ n, documentId, title }) => ({ n, documentId, title })) }),
    passages: passages.map(({ chunkId, score, n }) => ({ chunkId, score, n })),
  };
}

/** The model's arguments as an object; null when they are not a JSON object. */
export function parseArguments(raw: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(raw || '{}') as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Runs the tool calls of one model reply in order, the `index`-th of tool round `round` named `tool-<round>-<index>`
 * for its side effect (`context.onceFor`), and answers what each tells the model (an error for a tool that is not
 * offered, or arguments that are not a JSON object).
 */
export async function runToolCalls(tools: RunnableTool[], calls: ToolCall[], round: number): Promise<unknown[]> {
  const byName = new Map(tools.map((t) => [t.definition.name, t]));
  const results: unknown[] = [];
  for (const [index, call] of calls.entries()) {
    const args = parseArguments(call.arguments);
    const tool = byName.get(call.name);
    results.push(
      !tool
        ? { error: `there is no tool ${call.name}` }
        : args
          ? await tool.run(args, `tool-${round}-${index}`)
          : { error: 'the arguments are not a JSON object' },
    );
  }
  return results;
}
