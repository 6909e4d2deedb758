import { expect } from 'chai';
import { createUser } from '../../../db/accounts/accounts.service.js';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { expectError, expectIssue, ok } from './tables.helpers.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

async function person(a: Account, firstName = 'Ada'): Promise<string> {
  return ok(await call('POST', '/objects/people/rows', { key: a.userKey, body: { 'First name': firstName } }), 201).id;
}

const tasksOf = (rowId: string) => `/objects/people/rows/${rowId}/tasks`;

async function addTask(a: Account, rowId: string, body: Record<string, unknown>) {
  return ok(await call('POST', tasksOf(rowId), { key: a.userKey, body }), 201);
}

async function events(type: string, taskId: number): Promise<any[]> {
  const result = await harness()
    .orm.em.getKnex()
    .raw(`select payload from outbox_events where type = ? and (payload->'task'->>'id')::int = ?`, [type, taskId]);
  return (result.rows as { payload: any }[]).map((r) => r.payload);
}

describe('tasks of Object records', () => {
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('creates tasks with assignees and lists them open first, then by due date, page by page', async () => {
    const rowId = await person(a);
    const colleague = await harness()
      .orm.em.fork()
      .transactional((em) => createUser(em, a.account.id, `tasks-${Date.now()}@example.test`));
    const late = await addTask(a, rowId, { content: 'Send contract', dueDate: '2030-03-01T09:00:00Z', assigneeIds: [colleague.id, a.user.id] });
    expect(late).to.include({
      object: 'people',
      rowId,
      content: 'Send contract',
      dueDate: '2030-03-01T09:00:00.000Z',
      status: 'open',
      completedAt: null,
      completedBy: null,
    });
    expect(late.assigneeIds).to.deep.equal([colleague.id, a.user.id]);
    expect(late.createdBy).to.deep.equal({ id: a.user.id, email: a.user.email });
    const undated = await addTask(a, rowId, { content: 'Some day' });
    await addTask(a, rowId, { content: 'Call back', dueDate: '2030-01-01T09:00:00Z' });
    const done = await addTask(a, rowId, { content: 'Intro email', dueDate: '2029-01-01T00:00:00Z' });
    ok(await call('POST', `/objects/people/tasks/${done.id}/complete`, { key: a.userKey }));
    await addTask(a, await person(a, 'Other'), { content: 'Not on this record' });

    const first = ok(await call('GET', `${tasksOf(rowId)}?limit=2`, { key: a.generalKey }));
    expect(first.agentry.map((t: any) => t.content)).to.deep.equal(['Call back', 'Send contract']);
    const second = ok(await call('GET', `${tasksOf(rowId)}?limit=2&cursor=${first.nextCursor}`, { key: a.generalKey }));
    expect(second.agentry.map((t: any) => t.content)).to.deep.equal(['Some day', 'Intro email']);
    expect(second.nextCursor).to.equal(null);
    expect(ok(await call('GET', `/objects/people/tasks/${undated.id}`, { key: a.generalKey }))).to.deep.equal(undated);
    expect(await events('OBJECT_TASK_CREATED', late.id)).to.have.length(1);
    expect((await events('OBJECT_TASK_CREATED', late.id))[0]).to.include({ rowId, tableName: 'people' });
  });

  it('completes and uncompletes per the state table, recording who and when, with an event on completion', async () => {
    const rowId = await person(a);
    const task = await addTask(a, rowId, { content: 'Follow up' });
    const before = Date.now();
    const completed = ok(await call('POST', `/objects/people/tasks/${task.id}/complete`, { key: a.userKey }));
    expect(completed.status).to.equal('completed');
    expect(completed.completedBy).to.deep.equal({ id: a.user.id, email: a.user.email });
    expect(Date.parse(completed.completedAt)).to.be.within(before - 1000, Date.now() + 1000);
    expect(await events('OBJECT_TASK_COMPLETED', task.id)).to.have.length(1);
    expectError(await call('POST', `/objects/people/tasks/${task.id}/complete`, { key: a.userKey }), 409, 'conflict');
    expect(await events('OBJECT_TASK_COMPLETED', task.id)).to.have.length(1);
    const reopened = ok(await call('POST', `/objects/people/tasks/${task.id}/uncomplete`, { key: a.userKey }));
    expect(reopened).to.include({ status: 'open', completedAt: null, completedBy: null });
    expectError(await call('POST', `/objects/people/tasks/${task.id}/uncomplete`, { key: a.userKey }), 409, 'conflict');
  });

  it('patches content, due date and assignees; refuses bad input with 400 naming the field and changes nothing', async () => {
    const rowId = await person(a);
    const task = await addTask(a, rowId, { content: 'Draft', dueDate: '2030-01-01T00:00:00Z' });
    const patched = ok(
      await call('PATCH', `/objects/people/tasks/${task.id}`, {
        key: a.userKey,
        body: { content: 'Final', dueDate: null, assigneeIds: [a.user.id] },
      }),
    );
    expect(patched).to.include({ content: 'Final', dueDate: null });
    expect(patched.assigneeIds).to.deep.equal([a.user.id]);
    const other = await newAccount();
    const patch = (body: unknown) => call('PATCH', `/objects/people/tasks/${task.id}`, { key: a.userKey, body });
    expect(expectIssue(await patch({ assigneeIds: [other.user.id] }), 'assigneeIds').code).to.equal('not_found');
    expectIssue(await patch({ dueDate: 'tomorrow' }), 'dueDate');
    expectIssue(await patch({ content: '   ' }), 'content');
    expectIssue(await patch({ colour: 'red' }), /colour|body/);
    expect(expectIssue(await call('POST', tasksOf(rowId), { key: a.userKey, body: { dueDate: null } }), 'content').code).to.equal('required');
    expect(ok(await call('GET', `/objects/people/tasks/${task.id}`, { key: a.userKey }))).to.deep.equal(patched);
  });

  it('needs a USER key to write, hides other accounts, and goes with its record', async () => {
    const rowId = await person(a);
    const task = await addTask(a, rowId, { content: 'Mine' });
    const g = a.generalKey;
    expectError(await call('POST', tasksOf(rowId), { key: g, body: { content: 'x' } }), 403, 'forbidden');
    expectError(await call('PATCH', `/objects/people/tasks/${task.id}`, { key: g, body: { content: 'x' } }), 403, 'forbidden');
    expectError(await call('POST', `/objects/people/tasks/${task.id}/complete`, { key: g }), 403, 'forbidden');
    expectError(await call('POST', `/objects/people/tasks/${task.id}/uncomplete`, { key: g }), 403, 'forbidden');
    expectError(await call('DELETE', `/objects/people/tasks/${task.id}`, { key: g }), 403, 'forbidden');

    const other = await newAccount();
    expectError(await call('GET', `/objects/people/tasks/${task.id}`, { key: other.userKey }), 404, 'not_found');
    expectError(await call('POST', `/objects/people/tasks/${task.id}/complete`, { key: other.userKey }), 404, 'not_found');
    expectError(await call('GET', tasksOf(rowId), { key: other.userKey }), 404, 'not_found');
    expectError(await call('POST', tasksOf(rowId), { key: other.userKey, body: { content: 'x' } }), 404, 'not_found');

    const gone = await addTask(a, rowId, { content: 'Deleted alone' });
    expect((await call('DELETE', `/objects/people/tasks/${gone.id}`, { key: a.userKey })).status).to.equal(204);
    expectError(await call('GET', `/objects/people/tasks/${gone.id}`, { key: a.userKey }), 404, 'not_found');
    expect((await call('DELETE', `/objects/people/rows/${rowId}`, { key: a.userKey })).status).to.equal(204);
    expectError(await call('GET', `/objects/people/tasks/${task.id}`, { key: a.userKey }), 404, 'not_found');
    const left = await harness().orm.em.getKnex().raw('select count(*)::int as n from record_tasks where row_id = ?', [rowId]);
    expect(left.rows[0].n).to.equal(0);
  });
});
