/** Running node types in tests: small DRAFT workflows built and run through the API, and the AI model they default to. */
import { expect } from 'chai';
import type { AutomationRunResult } from '../../../workflows/run-automation.workflow.js';
import { runResult } from '../../setup/runs.js';
import { call } from '../../setup/http.js';

/** The default TEXT model of the catalog (GET /ai-models), which AI nodes use unless they name one: GPT-4o, 5 credits a message. */
export const DEFAULT_TEXT_MODEL = { externalId: 'gpt-4o', credits: 5 };

/** A DRAFT workflow of the account, with its node-adding and running helpers. */
export async function draftWorkflow(key: string, variables: string[] = []) {
  const id = (await call('POST', '/workflows', { key, body: { name: `Nodes ${Date.now()}` } })).body.id as number;
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
