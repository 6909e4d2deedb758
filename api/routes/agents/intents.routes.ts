/** `/agents/{agentId}/intents` (USER keys): intents and their training phrases; suggestions from the AI gateway. */
import type { AiProvider } from '../../../integrations/ai/ai-provider.js';
import { findAgent } from '../../../db/agents/agents.service.js';
import { generatePhrases, type PhraseRequest } from '../../../integrations/ai/phrase-generation.js';
import {
  createIntent,
  deleteIntent,
  findIntent,
  intentView,
  listIntents,
  updateIntent,
  type IntentInput,
} from '../../../db/agents/intents.service.js';
import { paginate } from '../../pagination.js';
import type { RouteInput, RouteRegistry } from '../../route-registry.js';
import { GeneratePhrasesSchema, IntentCreateSchema, IntentSchema, IntentUpdateSchema, page } from '../../schemas/agents.schema.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import { agentLock, agentParams, type AgentId } from './agent-params.js';

const tag = 'Intents';
const base = '/agents/:agentId/intents';
const params = agentParams();
const intentParams = agentParams(['intentId']);
type IntentId = AgentId & { intentId: number };
const intent = { description: 'Intent', schema: IntentSchema };
const readIntent = async ({ auth, em, params }: RouteInput<unknown, unknown, IntentId>) =>
  intentView(await findIntent(em, await findAgent(em, auth.account.id, params.agentId), params.intentId));
const PhrasesSchema = {
  type: 'object',
  required: ['phrases'],
  additionalProperties: false,
  properties: { phrases: { type: 'array', items: { type: 'string' } } },
};

export function intentRoutes(api: RouteRegistry, ai: AiProvider | null): void {
  api.resource<IntentId>(`${base}/:intentId`, async (em, accountId, p) => findIntent(em, await findAgent(em, accountId, p.agentId), p.intentId));
  api.add<unknown, { limit: number; cursor?: string }, AgentId>({
    method: 'get',
    operationId: 'listIntents',
    path: base,
    scope: 'U',
    tag,
    summary: 'Intents of the agent',
    params,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [intent], nextCursor }', schema: page(IntentSchema) } },
    handler: async ({ auth, em, params, query }) =>
      paginate((await listIntents(em, await findAgent(em, auth.account.id, params.agentId))).map(intentView), query.limit, query.cursor),
  });
  api.add<IntentInput, unknown, AgentId>({
    method: 'post',
    operationId: 'createIntent',
    path: base,
    scope: 'U',
    tag,
    summary: 'Creates an intent with its training phrases (trimmed, without repeats)',
    params,
    body: IntentCreateSchema,
    status: 201,
    responses: { 201: intent, 409: { description: 'The name is taken' } },
    lock: agentLock,
    handler: async ({ auth, em, params, body }) => intentView(await createIntent(em, await findAgent(em, auth.account.id, params.agentId), body)),
  });
  api.add<unknown, unknown, AgentId>({
    method: 'get',
    operationId: 'listAllIntents',
    path: `${base}/all`,
    scope: 'U',
    tag,
    summary: 'Every intent of the agent, unpaginated',
    params,
    responses: { 200: { description: '{ agentry: [intent], nextCursor: null }', schema: page(IntentSchema) } },
    handler: async ({ auth, em, params }) => ({
      agentry: (await listIntents(em, await findAgent(em, auth.account.id, params.agentId))).map(intentView),
      nextCursor: null,
    }),
  });
  api.add<PhraseRequest, unknown, AgentId>({
    method: 'post',
    operationId: 'generateIntentPhrases',
    path: `${base}/generate-phrases`,
    scope: 'U',
    tag,
    summary: 'Suggests training phrases through the AI gateway; without one configured (AI_BASE_URL, AI_API_KEY) answers 503 and suggests nothing',
    params,
    body: GeneratePhrasesSchema,
    responses: {
      200: { description: '{ phrases }: new phrases, none repeating the given ones', schema: PhrasesSchema },
      402: { description: 'The account has not enough credits for the AI call' },
      503: { description: 'No AI gateway is configured (the message names the variables to set), or the provider failed' },
    },
    handler: async ({ auth, em, params, body }) => generatePhrases(em, ai, await findAgent(em, auth.account.id, params.agentId), body),
  });
  api.add<unknown, unknown, IntentId>({
    method: 'get',
    operationId: 'getIntent',
    path: `${base}/:intentId`,
    scope: 'U',
    tag,
    summary: 'One intent',
    params: intentParams,
    responses: { 200: intent },
    etag: true,
    handler: readIntent,
  });
  api.add<Partial<IntentInput>, unknown, IntentId>({
    method: 'put',
    operationId: 'updateIntent',
    path: `${base}/:intentId`,
    scope: 'U',
    tag,
    summary: 'Updates name, description or training phrases (the list sent replaces the old one)',
    params: intentParams,
    body: IntentUpdateSchema,
    responses: { 200: intent },
    lock: agentLock,
    etag: readIntent,
    handler: async ({ auth, em, params, body }) => {
      const agent = await findAgent(em, auth.account.id, params.agentId);
      return intentView(await updateIntent(em, await findIntent(em, agent, params.intentId), body));
    },
  });
  api.add<unknown, unknown, IntentId>({
    method: 'delete',
    operationId: 'deleteIntent',
    path: `${base}/:intentId`,
    scope: 'U',
    tag,
    summary: 'Deletes an intent; refused (409, naming the nodes) while a TRIGGER_INTENT node lists it',
    params: intentParams,
    status: 204,
    responses: { 204: { description: 'Deleted' }, 409: { description: 'Used by TRIGGER_INTENT nodes' } },
    lock: agentLock,
    handler: async ({ auth, em, params }) =>
      deleteIntent(em, await findIntent(em, await findAgent(em, auth.account.id, params.agentId), params.intentId)),
  });
}
