import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

const SCHEDULE = { cronExpression: '0 9 * * MON-FRI', timezone: 'Europe/Paris', startTime: null, endTime: null, frequency: 'DAILY' };

describe('workflows', () => {
  let a: Account;
  let key: string;
  before(async () => {
    a = await newAccount();
    key = a.userKey;
  });

  async function workflow(name = 'Flow'): Promise<number> {
    const res = await call('POST', '/workflows', { key: a.generalKey, body: { name } });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  }

  it('creates, lists with every list-item field, filters by status, updates and soft-deletes', async () => {
    const created = await call('POST', '/workflows', { key, body: { name: 'Onboarding', description: 'Welcome new people' } });
    expect(created.body).to.include({
      name: 'Onboarding',
      status: 'DRAFT',
      triggerType: null,
      runsCount: 0,
      runsFailedCount: 0,
      lastRunDate: null,
      liveSnapshotId: null,
    });
    expect(created.body.draftSnapshotId).to.match(/^[0-9a-f]{24}$/);
    const id = created.body.id;
    const list = await call('GET', '/workflows', { key });
    const item = list.body.agentry.find((w: { id: number }) => w.id === id);
    expect(Object.keys(item).sort()).to.deep.equal(
      ['createdAt', 'description', 'id', 'lastRunDate', 'name', 'runsCount', 'runsFailedCount', 'status', 'triggerType', 'updatedAt'].sort(),
    );
    expect((await call('PUT', `/workflows/${id}`, { key, body: { status: 'ACTIVE', name: 'Onboarding v2' } })).body).to.include({
      status: 'ACTIVE',
      name: 'Onboarding v2',
    });
    const active = await call('GET', '/workflows?status=ACTIVE', { key });
    expect(active.body.agentry.map((w: { id: number }) => w.id)).to.include(id);
    expect((await call('GET', '/workflows?status=DRAFT', { key })).body.agentry.map((w: { id: number }) => w.id)).to.not.include(id);
    expect((await call('DELETE', `/workflows/${id}`, { key })).status).to.equal(204);
    expect((await call('GET', `/workflows/${id}`, { key })).status).to.equal(404);
    const deleted = await call('GET', '/workflows?status=DELETED', { key });
    expect(deleted.body.agentry.find((w: { id: number }) => w.id === id).status).to.equal('DELETED');
    expect((await call('GET', '/workflows?status=PAUSED', { key })).status).to.equal(400);
  });

  it('refuses bad bodies naming the field, and hides workflows of other accounts', async () => {
    const empty = await call('POST', '/workflows', { key, body: { name: ' ' } });
    expect(empty.status).to.equal(400);
    expect(empty.body.details.issues[0].path).to.equal('name');
    const unknown = await call('PUT', `/workflows/${await workflow()}`, { key, body: { colour: 'red' } });
    expect(unknown.body.details.issues[0]).to.include({ code: 'unknown_field', path: 'colour' });
    const other = await newAccount();
    expect((await call('GET', `/workflows/${await workflow()}`, { key: other.userKey })).status).to.equal(404);
  });

  it('adds nodes with generated node_<uuid> ids, keeps edges inline and global, and the triggerType follows the graph', async () => {
    const id = await workflow();
    const hook = await call('POST', `/workflows/${id}/nodes`, {
      key,
      body: { type: 'WEBHOOK', alias: 'Inbound', data: { url: 'https://example.test/in' } },
    });
    expect(hook.status, hook.text).to.equal(201);
    const hookId = hook.body.nodes[0].nodeId;
    expect(hookId).to.match(/^node_[0-9a-f-]{36}$/);
    expect(hook.body.nodes[0].data.type).to.equal('WEBHOOK');
    const api = await call('POST', `/workflows/${id}/nodes`, {
      key,
      body: { type: 'API', data: { url: 'https://api.example.test/{trigger_payload}' } },
    });
    const apiId = api.body.nodes[1].nodeId;
    const edged = await call('POST', `/workflows/${id}/edges`, { key, body: { source: hookId, handle: 'default', targetEdge: apiId } });
    expect(edged.body.edges).to.deep.equal([{ source: hookId, handle: 'default', targetEdge: apiId }]);
    expect(edged.body.nodes[0].edges).to.deep.equal(edged.body.edges);
    expect((await call('GET', `/workflows/${id}`, { key })).body.triggerType).to.equal('INCOMING_WEBHOOK');

    await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'SCHEDULED_TRIGGER', data: SCHEDULE } });
    const detail = await call('GET', `/workflows/${id}?includeNodes=true`, { key });
    expect(detail.body.triggerType).to.equal('SCHEDULED_TRIGGER');
    expect(detail.body.nodes).to.have.length(3);

    // Adding an edge on a used handle replaces it; deleting a node deletes its edges.
    const third = detail.body.nodes[2].nodeId;
    const replaced = await call('POST', `/workflows/${id}/edges`, { key, body: { source: hookId, handle: 'default', targetEdge: third } });
    expect(replaced.body.edges).to.deep.equal([{ source: hookId, handle: 'default', targetEdge: third }]);
    const removed = await call('DELETE', `/workflows/${id}/nodes/${third}`, { key });
    expect(removed.body.edges).to.deep.equal([]);
    expect(removed.body.nodes.map((n: { nodeId: string }) => n.nodeId)).to.deep.equal([hookId, apiId]);
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: hookId, handle: 'default', targetEdge: apiId } });
    const unedged = await call('DELETE', `/workflows/${id}/edges`, { key, body: { source: hookId, handle: 'default' } });
    expect(unedged.body.edges).to.deep.equal([]);
    expect((await call('DELETE', `/workflows/${id}/edges`, { key, body: { source: hookId, handle: 'default' } })).status).to.equal(404);
  });

  it('validates node data per type with clear messages, and saves nothing on failure', async () => {
    const id = await workflow();
    const other = await newAccount();
    const foreignWorkflow = (await call('POST', '/workflows', { key: other.userKey, body: { name: 'Theirs' } })).body.id;
    const foreignTable = (await call('GET', '/objects/companies', { key: other.userKey })).body.id;
    const cases: [Record<string, unknown>, string, string, RegExp?][] = [
      [{ type: 'TRIGGER', data: { triggerType: 'SCHEDULED_TRIGGER' } }, 'data.triggerType', 'invalid', /SCHEDULED_TRIGGER node/],
      [{ type: 'TRIGGER', data: { triggerType: 'TABLE_ROW_CREATED' } }, 'data.triggeredByTableId', 'required'],
      [
        { type: 'TRIGGER', data: { triggerType: 'OBJECT_RECORD_CREATED', triggeredByTableId: foreignTable, triggeredByRecordTypeId: 1 } },
        'data.triggeredByTableId',
        'not_found',
      ],
      [{ type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED', triggeredBy: 'USER' } }, 'data.triggeredBy', 'invalid'],
      [{ type: 'SCHEDULED_TRIGGER', data: { ...SCHEDULE, cronExpression: '61 * * * *' } }, 'data.cronExpression', 'invalid', /minute/],
      [{ type: 'SCHEDULED_TRIGGER', data: { ...SCHEDULE, timezone: 'Mars/Olympus' } }, 'data.timezone', 'invalid', /IANA/],
      [{ type: 'SCHEDULED_TRIGGER', data: { cronExpression: '* * * * *', timezone: 'UTC', endTime: null } }, 'data.startTime', 'required'],
      [{ type: 'API', data: { url: 'not a url' } }, 'data.url', 'invalid'],
      [{ type: 'WEBHOOK', data: {} }, 'data.url', 'required'],
      [{ type: 'WEBHOOK', data: { url: 'ftp://hooks.test' } }, 'data.url', 'invalid'],
      [
        { type: 'API', data: { url: 'https://x.test', method: 'PATCHX' } },
        'data.method',
        'invalid',
        /^must be one of GET, POST, PUT, PATCH, DELETE, HEAD$/,
      ],
      [{ type: 'API', data: { url: 'https://x.test', headers: 'x' } }, 'data.headers', 'invalid', /^must be an array or null$/],
      [{ type: 'BREAK', data: { reason: 'x' } }, 'data.reason', 'unknown_field'],
      [{ type: 'AUTOMATION_STATUS', data: { automationId: foreignWorkflow, action: 'TOGGLE' } }, 'data.automationId', 'not_found'],
      [{ type: 'AUTOMATION_STATUS', data: { automationId: id, action: 'EXPLODE' } }, 'data.action', 'invalid'],
      [{ type: 'ITERATION', data: { variableName: 'missing_list' } }, 'data.variableName', 'not_found'],
      [
        { type: 'CREATE_RECORD_ACTIVITY', data: { recordTypeId: 999999, rowId: 'x', activityType: 'NOTE', content: 'hi' } },
        'data.recordTypeId',
        'not_found',
      ],
      [{ type: 'TELEPORT', data: {} }, 'type', 'invalid'],
      [{ type: 'API', data: { type: 'WEBHOOK', url: 'https://x.test' } }, 'data.type', 'invalid'],
    ];
    for (const [body, path, code, message] of cases) {
      const res = await call('POST', `/workflows/${id}/nodes`, { key, body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(400);
      expect(res.body.code).to.equal('bad_request');
      const issue = res.body.details.issues.find((i: { path: string }) => i.path === path);
      expect(issue, `${JSON.stringify(body)} → ${res.text}`).to.include({ code });
      if (message) expect(issue.message).to.match(message);
    }
    expect((await call('GET', `/workflows/${id}/graph`, { key })).body).to.deep.equal({ nodes: [], edges: [] });
  });

  it('checks CREATE_RECORD_ACTIVITY against Objects and declared variables, naming an unknown variable', async () => {
    const id = await workflow();
    const people = (await call('GET', '/objects/people', { key })).body;
    const recordTypeId = people.recordTypes[0].id;
    const body = (content: string) => ({
      type: 'CREATE_RECORD_ACTIVITY',
      data: { recordTypeId, rowId: '{person_id}', activityType: 'NOTE', content },
    });
    const refused = await call('POST', `/workflows/${id}/nodes`, { key, body: body('Called {person_id}') });
    expect(refused.status).to.equal(400);
    expect(refused.body.details.issues.map((i: { message: string }) => i.message)).to.include('variable "person_id" does not exist');
    expect((await call('POST', `/workflows/${id}/variables`, { key, body: { name: 'person_id' } })).status).to.equal(201);
    const ok = await call('POST', `/workflows/${id}/nodes`, { key, body: body('Called {person_id} after {trigger_payload}') });
    expect(ok.status, ok.text).to.equal(201);
    const table = (await call('POST', '/tables', { key, body: { name: 'plain' } })).body;
    expect(table.recordTypes).to.equal(undefined);
  });

  it('publishes the draft as an immutable live snapshot', async () => {
    const id = await workflow();
    await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'SCHEDULED_TRIGGER', data: SCHEDULE } });
    const published = await call('POST', `/workflows/${id}/publish`, { key });
    expect(published.status).to.equal(201);
    const live = published.body.liveSnapshotId;
    expect(live)
      .to.match(/^[0-9a-f]{24}$/)
      .and.not.equal(published.body.draftSnapshotId);
    await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'API', data: { url: 'https://x.test' } } });
    const snapshots = await call('GET', `/workflows/${id}/snapshots`, { key });
    const liveSnapshot = snapshots.body.agentry.find((s: { id: string }) => s.id === live);
    expect(liveSnapshot).to.include({ kind: 'LIVE', isLive: true, nodeCount: 1 });
    expect(snapshots.body.agentry.find((s: { kind: string }) => s.kind === 'DRAFT').nodeCount).to.equal(2);
  });
});

describe('workflow variables', () => {
  it('creates, lists, checks names, renames and deletes variables with a USER key only', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Vars' } })).body.id;
    const base = `/workflows/${id}/variables`;
    const created = await call('POST', base, { key, body: { name: 'customer_email', description: 'Who to write to' } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ name: 'customer_email', description: 'Who to write to' });
    expect((await call('POST', base, { key, body: { name: 'customer_email' } })).status).to.equal(409);
    expect((await call('POST', base, { key, body: { name: '9lives' } })).status).to.equal(400);
    expect((await call('POST', base, { key, body: { name: 'trigger_payload' } })).status).to.equal(400);
    expect((await call('GET', `${base}/check-name?name=customer_email`, { key })).body).to.deep.equal({ exists: true });
    expect((await call('GET', `${base}/check-name?name=Customer_email`, { key })).body).to.deep.equal({ exists: false });
    // The built-in is taken too, as for agents: a name check must not promise a name that creating refuses.
    expect((await call('GET', `${base}/check-name?name=trigger_payload`, { key })).body).to.deep.equal({ exists: true });
    const all = await call('GET', `${base}/all`, { key });
    expect(all.body.agentry.map((v: { name: string }) => v.name)).to.include.members(['customer_email', 'trigger_payload']);
    const renamed = await call('PUT', `${base}/${created.body.id}`, { key, body: { name: 'email' } });
    expect(renamed.body.name).to.equal('email');
    expect((await call('GET', base, { key })).body.agentry.map((v: { name: string }) => v.name)).to.deep.equal(['email']);
    expect((await call('GET', base, { key: a.generalKey })).status).to.equal(403);
    const other = await newAccount();
    expect((await call('GET', `${base}/${created.body.id}`, { key: other.userKey })).status).to.equal(404);
    expect((await call('DELETE', `${base}/${created.body.id}`, { key })).status).to.equal(204);
    expect((await call('GET', `${base}/${created.body.id}`, { key })).status).to.equal(404);
  });

  it('refuses deleting a variable a draft or live node reads, naming the node, as for agents', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Used' } })).body.id;
    const variable = (await call('POST', `/workflows/${id}/variables`, { key, body: { name: 'city' } })).body;
    const node = await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'API', data: { url: 'https://x.test/{city}' } } });
    expect(node.status, node.text).to.equal(201);
    expect((await call('POST', `/workflows/${id}/publish`, { key })).status).to.equal(201);
    const refused = await call('DELETE', `/workflows/${id}/variables/${variable.id}`, { key });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.body.message).to.match(new RegExp(`node ${node.body.nodes[0].nodeId} \\(API\\)`));
    // Gone from the draft but still in the live graph: a live run still reads it.
    expect((await call('DELETE', `/workflows/${id}/nodes/${node.body.nodes[0].nodeId}`, { key })).status).to.be.oneOf([200, 204]);
    expect((await call('DELETE', `/workflows/${id}/variables/${variable.id}`, { key })).status).to.equal(409);
    expect((await call('POST', `/workflows/${id}/publish`, { key })).status).to.equal(201);
    expect((await call('DELETE', `/workflows/${id}/variables/${variable.id}`, { key })).status).to.equal(204);
  });
});
