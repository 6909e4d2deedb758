/**
 * Multi-query retrieval's rewrite (a knowledge base's `multiQuery`): the one short prompt that asks the chat model
 * for a few rewordings of a question in the words documentation would use, and the reading of its answer. Pure: the
 * call itself is made by `integrations/knowledge/query-rewrite.ts`.
 */
import type { ChatMessage } from '../runtime/ai-call.js';

/** How many rewordings are asked for (and kept at most). */
export const REWRITES = 3;

/** The longest question sent, and the longest rewording kept (characters). */
const MAX_QUESTION = 500;
const MAX_REWRITE = 200;

export const REWRITE_SCHEMA = {
  type: 'object',
  properties: { queries: { type: 'array', items: { type: 'string' } } },
  required: ['queries'],
  additionalProperties: false,
};

const SYSTEM =
  `You rewrite a question for a search engine over documentation. Give ${REWRITES} different rewordings of it, each ` +
  'one short line in the words a manual would use (the names of features, commands, settings and technical terms). ' +
  'Do not answer the question. Answer JSON only: {"queries": ["...", "...", "..."]}.';

export function rewriteMessages(question: string): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: question.trim().slice(0, MAX_QUESTION) },
  ];
}

/** `{"queries": [...]}` (in a code fence or not), else one rewording per line (numbering and bullets dropped). */
function candidates(answer: string): string[] {
  const text = answer.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, '');
  try {
    const parsed = JSON.parse(text) as { queries?: unknown };
    if (Array.isArray(parsed?.queries)) return parsed.queries.filter((q): q is string => typeof q === 'string');
  } catch {
    // not JSON: lines
  }
  return text.split('\n').map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').replace(/^"(.*)",?$/, '$1'));
}

/**
 * The rewordings of the model's answer worth a search: trimmed to one line and `MAX_REWRITE` characters, none empty
 * or repeating another or the question (case aside), at most `REWRITES`.
 */
export function readRewrites(answer: string, question: string): string[] {
  const seen = new Set([question.trim().toLowerCase().replace(/\s+/g, ' ')]);
  const kept: string[] = [];
  for (const candidate of candidates(answer)) {
    const query = candidate.replace(/\s+/g, ' ').trim().slice(0, MAX_REWRITE).trim();
    const key = query.toLowerCase();
    if (!/\w/.test(query) || seen.has(key)) continue;
    seen.add(key);
    kept.push(query);
    if (kept.length === REWRITES) break;
  }
  return kept;
}
