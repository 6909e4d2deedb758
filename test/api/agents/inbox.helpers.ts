/** The operator inbox's tests: a second person of an account, with their own USER key, and inbox calls. */
import { harness } from '../../setup/harness.js';
import { createUser } from '../../../db/accounts/accounts.service.js';
import { issueUserKey } from '../../../db/accounts/api-keys.service.js';
import { ok, type Account } from './agent-calls.helpers.js';

export interface Colleague {
  id: number;
  email: string;
  key: string;
}

/** Another user of the account `a`, with a USER key. */
export async function colleague(a: Account, name: string): Promise<Colleague> {
  return harness()
    .orm.em.fork()
    .transactional(async (em) => {
      const user = await createUser(em, a.account.id, `${name}-${Date.now()}@example.test`);
      return { id: user.id, email: user.email, key: (await issueUserKey(em, user.id)).key };
    });
}

/** The ids of `GET /conversations` with the query. */
export async function inboxIds(key: string, query = ''): Promise<string[]> {
  return (await ok('GET', `/conversations${query}`, key)).agentry.map((c: { id: string }) => c.id);
}

/** One conversation as the inbox shows it to the key's user. */
export const inboxOf = (key: string, agentId: string, conversationId: string) =>
  ok('GET', `/agents/${agentId}/conversations/${conversationId}/inbox`, key);
