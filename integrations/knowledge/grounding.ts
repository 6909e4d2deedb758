/**
 * Replies grounded in a knowledge base: the instruction an AI node adds to its prompt, the numbered passages it
 * shows the model (expanded from their ids by the `aiCall` activity, `expandPassages`), and the citations of a reply
 * (the documents of the passages it cites as [n]).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { passagesOf, type Passage } from '../../db/knowledge/knowledge-search.js';
import type { ChatCall, ChatMessage } from '../../lib/runtime/ai-call.js';
import type { Citation } from '../../lib/runtime/contract.js';
import type { PassageRef } from '../../lib/knowledge/indexing-contract.js';

/** What the model is told about the passages it gets, or about finding none. */
export function groundingInstruction(found: boolean): string {
  return found
    ? 'Answer from the knowledge base passages below. Cite each passage you use as [n], its number. If the passages do not ' +
        'hold the answer, say that you do not know rather than guessing.'
    : 'Nothing in the knowledge base matches this question. Say that you do not know rather than guessing.';
}

/** A passage as the model reads it: where it comes from (title › headings), then its text. */
export function renderedPassage(p: Passage): string {
  return `${[p.title, ...p.headingPath].join(' › ')}\n${p.text}`;
}

/** A numbered passage of the prompt. */
const rendered = (p: Passage, n: number): string => `[${n}] ${renderedPassage(p)}`;

/** The message's content with its passages' text appended (numbered by their `n`, else from 1 in the order given). */
function withPassages(message: ChatMessage, passages: Passage[]): ChatMessage {
  const { passages: refs = [], ...rest } = message;
  const numbers = new Map(refs.map((r, i) => [r.chunkId, r.n ?? i + 1]));
  const block = passages.length ? `Knowledge base passages:\n\n${passages.map((p) => rendered(p, numbers.get(p.chunkId)!)).join('\n\n')}` : '';
  return { ...rest, content: [message.content, block].filter(Boolean).join('\n\n') };
}

/** The call as the provider gets it: every message naming passages carries their text instead (of the account's chunks only). */
export async function expandPassages(em: EntityManager, accountId: number, call: ChatCall): Promise<ChatCall> {
  if (!call.messages.some((m) => m.passages?.length)) return call;
  const knex = em.getKnex();
  const messages = await Promise.all(
    call.messages.map(async (m) =>
      m.passages
        ? withPassages(
            m,
            await passagesOf(
              knex,
              accountId,
              m.passages.map((r) => r.chunkId),
            ),
          )
        : m,
    ),
  );
  return { ...call, messages };
}

/** The passages as Temporal history holds them. */
export const passageRefs = (passages: { chunkId: string; score: number }[]): PassageRef[] =>
  passages.map((p) => ({ chunkId: p.chunkId, score: Number(p.score.toFixed(6)) }));

/** What a citation names: a document, or a web page. */
const citedAs = (c: Citation) => ('documentId' in c ? `d:${c.documentId}` : `u:${c.url}`);

/** The documents of the passages a reply cites ([n], numbered as shown), each once, in order of first citation. */
export function citationsIn(reply: string, sources: Citation[]): Citation[] {
  const cited: Citation[] = [];
  for (const match of reply.matchAll(/\[(\d{1,3})\]/g)) {
    const source = sources[Number(match[1]) - 1];
    if (source && !cited.some((c) => citedAs(c) === citedAs(source))) cited.push(source);
  }
  return cited;
}
