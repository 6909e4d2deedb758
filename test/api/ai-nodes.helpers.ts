/** Building and running small workflows of AI nodes in tests. */
import { expect } from 'chai';
import type { AutomationRunResult } from '../../workflows/run-automation.workflow.js';
import { runResult } from '../setup/runs.js';
import { call } from '../setup/http.js';

/** A DRAFT workflow of the account, with its node-adding and running helpers. */
export async function aiWorkflow(key: string, variables: string[] = []) {
  const id = (await call('POST', '/workflows', { key, body: { name: `AI ${Date.now()}` } })).body.id as number;
  for (const name of variables) expect((await call('POST', `/workflows/${id}/variables`, { key, body: { name } })).status).to.equal(201);
  return {
    id,
    async node(type: string, data: Record<string, unknown>): Promise<string> {
      const res = await call('POST', `/workflows/${id}/nodes`, { key, body: { type, data } });
      expect(res.status, res.text).to.equal(201);
      return res.body.nodes.at(-1).nodeId as string;
    },
    async edge(source: string, handle: string, target: string): Promise<void> {
      const res = await call('POST', `/workflows/${id}/edges`, { key, body: { source, handle, targetEdge: target } });
      expect(res.status, res.text).to.be.oneOf([200, 201]);
    },
    /** Runs the draft from `entryNodeId` and answers the run's result once it has ended. */
    async run(entryNodeId: string, payload: unknown = null): Promise<AutomationRunResult & { logId: string }> {
      const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { entryNodeId, payload } });
      expect(started.status, started.text).to.equal(202);
      return { ...(await runResult(started.body.id)), logId: started.body.id };
    },
  };
}
