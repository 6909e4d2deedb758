import { accountView, userView } from '../../db/accounts/accounts.service.js';
import type { RouteRegistry } from '../route-registry.js';
import { MeResponseSchema } from '../schemas/me.schema.js';

export function meRoutes(api: RouteRegistry): void {
  api.add({
    method: 'get',
    operationId: 'getMe',
    path: '/me',
    scope: 'any',
    tag: 'Identity',
    summary: 'Verifies the key and returns its account, and its user for a USER key (null for a GENERAL key)',
    responses: { 200: { description: 'The identity of the key', schema: MeResponseSchema } },
    handler: ({ auth }) => ({
      ok: true,
      data: { account: accountView(auth.account), user: auth.user ? userView(auth.user) : null },
    }),
  });
}
