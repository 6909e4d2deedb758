import { expect } from 'chai';
import { ensureRunRetention } from '../../launcher/run-retention.js';
import { harness } from '../setup/harness.js';

describe('run history retention', () => {
  const retentionSeconds = async (namespace: string) => {
    const { config } = await harness().env.client.workflowService.describeNamespace({ namespace });
    return Number(String(config?.workflowExecutionRetentionTtl?.seconds ?? 0));
  };

  it('sets the namespace retention that npm start applies to the embedded server, and leaves it alone when it is right', async () => {
    const { client } = harness().env;
    const namespace = client.options.namespace;
    const before = await retentionSeconds(namespace);
    try {
      expect(await ensureRunRetention(client, namespace, 3)).to.equal(true);
      expect(await retentionSeconds(namespace)).to.equal(3 * 86_400);
      expect(await ensureRunRetention(client, namespace, 3)).to.equal(false);
    } finally {
      await ensureRunRetention(client, namespace, before / 86_400);
    }
    expect(await retentionSeconds(namespace)).to.equal(before);
  });
});
