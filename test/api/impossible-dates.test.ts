/**
 * Impossible calendar dates through the HTTP API: month 13, 30 February, hour 25, minute 61 and leap seconds answer
 * 400 `bad_request` naming the parameter (query bounds of agent analytics and conversations, SCHEDULED_TRIGGER node
 * dates, task due dates) instead of a 500 or a silently shifted day; real dates such as 29 February 2024 still pass.
 */
import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';
import { issueAt, newAgent, ok, refused, type Account } from './agents/agent-calls.helpers.js';

const IMPOSSIBLE = ['2026-13-45', '2026-02-30', '2025-02-29', '2026-01-01T25:61:00Z', '2026-01-01T24:00:00Z', '2026-04-31T10:00:00Z'];

/** A SCHEDULED_TRIGGER node's body with these dates. */
const scheduled = (dates: Record<string, string | null>) => ({
  type: 'SCHEDULED_TRIGGER',
  data: { cronExpression: '0 9 * * *', timezone: 'Europe/Paris', startTime: null, endTime: null, ...dates },
});

describe('impossible calendar dates', () => {
  let a: Account;
  let agent: string;
  before(async () => {
    a = await newAccount();
    agent = `/agents/${(await newAgent(a)).id}`;
  });

  for (const path of ['analytics', 'conversations']) {
    it(`GET /agents/{id}/${path} refuses them in startDate and endDate with 400 naming the parameter`, async () => {
      for (const value of IMPOSSIBLE) {
        for (const name of ['startDate', 'endDate']) {
          const error = await refused('GET', `${agent}/${path}?${name}=${encodeURIComponent(value)}`, a.userKey, 400);
          expect(error.code).to.equal('bad_request');
          expect(issueAt(error, `query.${name}`).message).to.contain('real calendar date');
          expect(error.message).to.contain(name);
        }
      }
      const real = await call('GET', `${agent}/${path}?startDate=2024-02-29&endDate=2024-03-01T23:59:59Z`, { key: a.userKey });
      expect(real.status, real.text).to.equal(200);
    });
  }

  it('the agent analytics echo the real days they were given', async () => {
    const analytics = await ok('GET', `${agent}/analytics?startDate=2024-02-29&endDate=2024-03-01T10:00:00Z`, a.userKey);
    expect([analytics.startDate, analytics.endDate]).to.deep.equal(['2024-02-29', '2024-03-01']);
  });

  it('a SCHEDULED_TRIGGER node refuses them in data.startDate and data.endDate and stores nothing', async () => {
    const wf = await ok('POST', '/workflows', a.userKey, { name: 'Dated' });
    for (const value of IMPOSSIBLE) {
      for (const name of ['startDate', 'endDate']) {
        const error = await refused('POST', `/workflows/${wf.id}/nodes`, a.userKey, 400, scheduled({ [name]: value }));
        expect(issueAt(error, `data.${name}`).code).to.equal('invalid');
      }
    }
    const graph = await ok('GET', `/workflows/${wf.id}?includeNodes=true`, a.userKey);
    expect((graph.nodes ?? []).filter((n: { type: string }) => n.type === 'SCHEDULED_TRIGGER')).to.deep.equal([]);
    const added = await ok('POST', `/workflows/${wf.id}/nodes`, a.userKey, scheduled({ startDate: '2024-02-29', endDate: '2028-02-29T18:00' }));
    const node = added.nodes.at(-1);
    expect(node.data).to.include({ startDate: '2024-02-29', endDate: '2028-02-29T18:00' });
    const error = await refused('PUT', `/workflows/${wf.id}/nodes/${node.nodeId}`, a.userKey, 400, scheduled({ endDate: '2026-02-30' }));
    issueAt(error, 'data.endDate');
  });

  it("a task's dueDate refuses an impossible date-time, a leap second included", async () => {
    const row = await ok('POST', '/objects/people/rows', a.userKey, { 'First name': 'Ada' });
    for (const dueDate of ['2026-02-30T09:00:00Z', '2026-01-01T25:61:00Z', '2026-12-31T23:59:60Z']) {
      const error = await refused('POST', `/objects/people/rows/${row.id}/tasks`, a.userKey, 400, { content: 'Call', dueDate });
      issueAt(error, 'dueDate');
    }
    const task = await ok('POST', `/objects/people/rows/${row.id}/tasks`, a.userKey, { content: 'Call', dueDate: '2028-02-29T09:00:00+01:00' });
    expect(task.dueDate).to.equal('2028-02-29T08:00:00.000Z');
  });
});
