/**
 * TRIGGER_INTENT (flows): the entry of a non-default flow, entered when the user's message matches one of its
 * intents (of the same agent) or when `agenticRouting` says so. Runs with the conversation runtime.
 */
import { existingIntentIds } from './checks/resource-lookups.js';
import { idListCheck } from './checks/account-references.check.js';
import type { NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, idList, type NodeModule } from './node-module.js';

/** `intentIds` name intents of the flow's own agent. */
const checkIntents: NodeCheck = (node, ctx) =>
  ctx.agentId ? idListCheck({ field: 'intentIds', what: 'intent of this agent', exists: existingIntentIds(ctx.agentId) })(node, ctx) : [];

export const triggerIntentNode: NodeModule = {
  type: 'TRIGGER_INTENT',
  scopes: ['flow'],
  summary: "Entry point of a non-default flow: entered when the user's message matches one of its intents, or by agenticRouting",
  data: {
    properties: {
      intentIds: idList('intents', { type: 'integer' }),
      agenticRouting: { type: ['string', 'null'], maxLength: 5000, description: 'Natural-language instruction for when to enter the flow' },
    },
  },
  handles: DEFAULT_HANDLES,
  entry: true,
  checks: [checkIntents],
};
