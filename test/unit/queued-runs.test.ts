import { expect } from 'chai';
import type { PendingEvent } from '../../db/automations/event-subscribers.js';
import { manualRunOf, scheduledRunOf } from '../../worker/event-runs.js';
import { storedRunPayload } from '../../lib/runtime/queued-runs.js';

const event = (type: string, payload: Record<string, unknown>): PendingEvent =>
  ({ id: '1', accountId: 7, type, payload, chain: null, attempts: 0, createdAt: new Date() }) as unknown as PendingEvent;

describe('queued runs read from the outbox', () => {
  const request = { accountId: 7, automationId: 3 };

  it("reads the run's Temporal workflow id of a MANUAL_RUN payload, also one stored before it was named runWorkflowId", () => {
    expect(manualRunOf(event('MANUAL_RUN', { runWorkflowId: 'automation-3-manual-a', request }))).to.deep.equal({
      runWorkflowId: 'automation-3-manual-a',
      request,
    });
    expect(manualRunOf(event('MANUAL_RUN', { workflowId: 'automation-3-manual-b', request }))).to.deep.equal({
      runWorkflowId: 'automation-3-manual-b',
      request,
    });
  });

  it('reads a SCHEDULED_RUN payload of either shape', () => {
    const admitOnly = (runWorkflowId: string) => ({ runWorkflowId, request, admitOnly: true });
    expect(scheduledRunOf(event('SCHEDULED_RUN', { runWorkflowId: 'automation-3-s-1', ...request }))).to.deep.equal(admitOnly('automation-3-s-1'));
    expect(scheduledRunOf(event('SCHEDULED_RUN', { workflowId: 'automation-3-s-2', ...request }))).to.deep.equal(admitOnly('automation-3-s-2'));
  });

  it('refuses a payload that names no run', () => {
    expect(() => manualRunOf(event('MANUAL_RUN', { request }))).to.throw(/no Temporal workflow id/);
  });

  it('stores the old name beside the new one, so a worker of the previous version reads what a new one queues', () => {
    const stored = storedRunPayload({ runWorkflowId: 'automation-3-manual-c', request });
    expect(stored).to.deep.equal({ runWorkflowId: 'automation-3-manual-c', workflowId: 'automation-3-manual-c', request });
    expect(manualRunOf(event('MANUAL_RUN', { ...stored })).runWorkflowId).to.equal('automation-3-manual-c');
  });
});
