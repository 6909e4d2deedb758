/**
 * Custom tools (`/custom-tools`) as real HTTP calls: the model's arguments go in the query string for GET and
 * DELETE, as the JSON body otherwise, with the tool's headers. The answer (parsed when JSON, cut to 20,000
 * characters) is what the model reads; a failed call is reported to the model, which may try otherwise, but a call
 * the outbound address policy refuses fails the node (the model cannot change the tool's URL). Each call
 * is made once per tool call of the node execution: its answer is recorded, and a step run again (a retry, a run
 * from before steps executing the node after each AI call) reads it back instead of calling the tool again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentResource } from '../../../db/agents/agent-resource.entity.js';
import { OutboundError, type OutboundFetch } from '../../../integrations/outbound/outbound-fetch.js';
import type { ExecutionContext } from '../../node-module.js';
import { toolName, type RunnableTool } from './runnable-tool.js';
import { NodeError } from '../../../lib/errors.js';

const MAX_ANSWER_CHARS = 20_000;

interface CustomToolValues {
  description?: string;
  method?: string;
  url: string;
  headers?: { key: string; value: string }[];
  parameters?: Record<string, unknown>;
}

export async function customTools(
  em: EntityManager,
  accountId: number,
  ids: unknown[],
  context: Pick<ExecutionContext, 'onceFor' | 'httpTimeoutMs' | 'signal' | 'outbound'>,
): Promise<RunnableTool[]> {
  if (!ids.length) return [];
  const found = await em.find(AgentResource, { account: accountId, kind: 'CUSTOM_TOOL', id: { $in: ids.map(Number) } });
  if (found.length !== new Set(ids.map(Number)).size) throw new NodeError('A custom tool of this node no longer exists', 'InvalidNode');
  return found.map((tool) => {
    const values = tool.values as unknown as CustomToolValues;
    return {
      definition: {
        name: toolName('tool', tool.id, tool.name),
        description: values.description || tool.name,
        parameters: values.parameters ?? { type: 'object', properties: {} },
      },
      run: (args, part) => context.onceFor(part, () => callTool(context.outbound, values, args, context.httpTimeoutMs, context.signal)),
    };
  });
}

async function callTool(
  outbound: OutboundFetch,
  tool: CustomToolValues,
  args: Record<string, unknown>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<unknown> {
  const method = (tool.method ?? 'POST').toUpperCase();
  const url = new URL(tool.url);
  const inQuery = method === 'GET' || method === 'DELETE';
  if (inQuery) for (const [key, value] of Object.entries(args)) url.searchParams.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  const headers: Record<string, string> = Object.fromEntries((tool.headers ?? []).map((h) => [h.key, h.value]));
  if (!inQuery) headers['content-type'] = 'application/json';
  try {
    const response = await outbound(url, {
      method,
      headers,
      body: inQuery ? undefined : JSON.stringify(args),
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    const text = (await response.text()).slice(0, MAX_ANSWER_CHARS);
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the model reads the text
    }
    return { status: response.status, body };
  } catch (error) {
    if (signal.aborted || error instanceof OutboundError) throw error;
    return { error: `the call failed: ${(error as Error).message}` };
  }
}
