/**
 * `POST /agents/{agentId}/identity-secret/rotate` (USER key): a new identity secret for the agent's livechat widget,
 * shown once. The host site's server signs a signed-in visitor's id with it (`userHash`); the old secret stops
 * verifying at once. Stored sealed with SETTINGS_ENCRYPTION_KEY, never only hashed, since it must verify again.
 */
import { findAgent } from '../../../db/agents/agents.service.js';
import { rotateIdentitySecret } from '../../../db/agents/widget.service.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import type { RouteRegistry } from '../../route-registry.js';
import { strictObject } from '../../schemas/common.schema.js';
import { agentLock, agentParams, type AgentId } from './agent-params.js';

export function identitySecretRoutes(api: RouteRegistry, secrets: SecretBox | null): void {
  api.add<unknown, unknown, AgentId>({
    method: 'post',
    path: '/agents/:agentId/identity-secret/rotate',
    operationId: 'rotateAgentIdentitySecret',
    scope: 'U',
    tag: 'Agents',
    summary: "Makes a new identity secret for verifying the widget's identified visitors (userHash); shown once, the old one stops working",
    params: agentParams(),
    responses: {
      200: {
        description: 'The new secret: keep it on your server, never in a page',
        schema: strictObject({
          identitySecret: { type: 'string', description: 'userHash = hex(HMAC-SHA256(identitySecret, userId))' },
          rotatedAt: { type: 'string' },
        }),
      },
      409: { description: 'SETTINGS_ENCRYPTION_KEY is not configured on the API' },
    },
    lock: agentLock,
    handler: async ({ auth, em, params }) => {
      const secret = await rotateIdentitySecret(em, await findAgent(em, auth.account.id, params.agentId), secrets);
      return { identitySecret: secret, rotatedAt: new Date().toISOString() };
    },
  });
}
