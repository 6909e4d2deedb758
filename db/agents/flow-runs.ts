/**
 * A flow's run count (`flows.run_count`): a conversation turn entering a flow counts one run, once per key, so an
 * activity run again counts nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { claimEffects } from '../node-effects/node-effects.js';

/** The key of the flow run a conversation's turn counts. */
export const flowRunKey = (conversationWorkflowId: string, turn: number) => `${conversationWorkflowId}/turn-${turn}/count`;

/** Counts one run of flow `flowId` under `key` (a repeated key counts nothing), in one statement. */
export async function countFlowRun(em: EntityManager, key: string, flowId: number): Promise<void> {
  await em.getKnex().raw(
    `with claimed as (${claimEffects('select ?::text, null::jsonb')})
     update flows set run_count = run_count + 1 where id = ? and exists (select 1 from claimed)`,
    [key, flowId],
  );
}
