/**
 * The rewrite of multi-query retrieval: one chat call on the catalog's default TEXT model, through the AI gateway
 * like any AI call (its credits charged to the account, given back when it fails; tokens and latency on the AI
 * metrics), bounded by `REWRITE_TIMEOUT_MS`. Rewrites are not cached: see docs/agents.md ("Multi-query").
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { once } from '../../db/node-effects/node-effects.js';
import { AI_NOT_CONFIGURED, type AiGateway } from '../ai/ai-gateway.js';
import { resolveModel } from '../ai/model-resolution.js';
import { readRewrites, rewriteMessages, REWRITE_SCHEMA } from '../../lib/knowledge/query-rewrite.js';

/** How long a rewrite may take before the query goes on without it. */
export const REWRITE_TIMEOUT_MS = 5_000;

/** Rewordings of a question (none is a valid answer); throws saying why there are none to be had. */
export type QueryRewriter = (question: string, signal?: AbortSignal) => Promise<string[]>;

/** The rewriter of an account's queries: its call charged to `accountId`, made with `em`; one that says why without a provider. */
export function queryRewriter(gateway: AiGateway | null, em: EntityManager, accountId: number): QueryRewriter {
  return async (question, signal) => {
    if (!gateway?.provider) throw new Error(AI_NOT_CONFIGURED);
    const timeout = AbortSignal.timeout(REWRITE_TIMEOUT_MS);
    const session = gateway.direct(em, accountId, signal ? AbortSignal.any([signal, timeout]) : timeout);
    const model = await resolveModel(em, {}, 'TEXT');
    try {
      const { content } = await session.chat(model, { messages: rewriteMessages(question), jsonSchema: { name: 'queries', schema: REWRITE_SCHEMA } });
      return readRewrites(content, question);
    } catch (error) {
      if (timeout.aborted && !signal?.aborted) throw new Error(`no answer within ${REWRITE_TIMEOUT_MS / 1000} s`, { cause: error });
      throw error;
    }
  };
}

/**
 * The rewriter of a node execution (`executionKey`), which Temporal may run again: each question's rewrite is made,
 * charged and recorded in one transaction, so an attempt after one that finished answers the recorded rewordings,
 * and one after an attempt that died mid-call finds its charge rolled back with it. The transaction stays open for
 * the call (at most `REWRITE_TIMEOUT_MS`). A failed rewrite records nothing.
 */
export function recordedQueryRewriter(gateway: AiGateway | null, em: EntityManager, accountId: number, executionKey: string): QueryRewriter {
  return (question, signal) => {
    const key = `${executionKey}/rewrite/${createHash('sha256').update(question).digest('hex').slice(0, 32)}`;
    return once(em, key, (tx) => queryRewriter(gateway, tx, accountId)(question, signal));
  };
}
