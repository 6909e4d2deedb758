/**
 * The account the write-operation fuzz test aims at: one of each resource a path can name, so requests reach the
 * validation of real resources, and a fingerprint of everything the account stores, to prove refused requests
 * changed nothing.
 */
import { expect } from 'chai';
import type { BootstrapResult } from '../../db/accounts/accounts.service.js';
import { setUserPassword } from '../../db/accounts/passwords.service.js';
import { harness } from '../setup/harness.js';
import { call } from '../setup/http.js';

export interface FuzzFixture {
  accountId: number;
  userKey: string;
  ids: Record<string, string | number>;
  workflowId: number;
}

async function ok<T = any>(method: string, path: string, key: string, body?: unknown): Promise<T> {
  const res = await call(method, path, { key, body });
  expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 299);
  return res.body as T;
}

export async function fuzzFixture(account: BootstrapResult): Promise<FuzzFixture> {
  const key = account.userKey;
  await ok('POST', '/tables', key, {
    name: 'fuzz',
    columns: [
      { name: 'Name', type: 'string' },
      { name: 'Qty', type: 'number' },
    ],
  });
  const table = await ok('GET', '/tables/fuzz', key);
  const field = table.fields.find((f: { name: string }) => f.name === 'Name');
  const tag = await ok('POST', `/tables/fuzz/fields`, key, { name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } }).then(
    (f: { id: number }) => ok('POST', `/tables/fuzz/fields/${f.id}/tags`, key, { name: 'New' }),
  );
  const row = await ok('POST', '/tables/fuzz/rows', key, { Name: 'Ada', Qty: 1 });
  const view = await ok('POST', '/objects/people/views', key, { name: 'All' });
  const tableView = await ok('POST', '/tables/fuzz/views', key, { name: 'All' });
  const qty = table.fields.find((f: { name: string }) => f.name === 'Qty');
  const aggregation = await ok('POST', `/tables/fuzz/views/${tableView.id}/aggregations`, key, { fieldId: qty.id, operation: 'sum' });
  const option = await ok('POST', '/objects/people/fields', key, { name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } }).then(
    (f: { id: number }) => ok('POST', `/objects/people/fields/${f.id}/options`, key, { name: 'New' }),
  );
  const people = await ok('GET', '/objects/people', key);
  const person = await ok('POST', '/objects/people/rows', key, { 'First name': 'Linus' });
  const activity = await ok('POST', `/objects/people/rows/${person.id}/activities`, key, { type: 'NOTE', content: 'hello' });
  const task = await ok('POST', `/objects/people/rows/${person.id}/tasks`, key, { content: 'call back' });
  const workflowId = (await ok('POST', '/workflows', key, { name: 'Fuzz' })).id as number;
  const graph = await ok('POST', `/workflows/${workflowId}/nodes`, key, { type: 'API', data: { url: 'https://x.test' } });
  const variable = await ok('POST', `/workflows/${workflowId}/variables`, key, { name: 'v' });
  const webhook = await ok('POST', '/incoming-webhooks', key, { name: 'Fuzz' });
  const agent = await ok('POST', '/agents', key, { name: 'Fuzz' });
  const flow = await ok('POST', `/agents/${agent.id}/flows`, key, { name: 'Fuzz flow' });
  await ok('POST', `/agents/${agent.id}/flows/${flow.id}/nodes`, key, { type: 'TRIGGER_INTENT' });
  const agentVariable = await ok('POST', `/agents/${agent.id}/variables`, key, { name: 'v' });
  const intent = await ok('POST', `/agents/${agent.id}/intents`, key, { name: 'hello', trainingPhrases: ['hi'] });
  await ok('POST', `/agents/${agent.id}/flows/${agent.defaultFlowId}/publish`, key);
  await ok('PUT', `/agents/${agent.id}/deployment-status`, key, { isOffline: false });
  const conversation = await ok('POST', `/agents/${agent.id}/conversations`, key, {});
  const tool = await ok('POST', '/custom-tools', key, { name: 'Tool', url: 'https://x.test' });
  const playbook = await ok('POST', '/playbooks', key, { name: 'Playbook' });
  const knowledgeBase = await ok('POST', '/knowledge-bases', key, { name: 'KB' });
  await setUserPassword(harness().orm.em.fork(), account.user.id, 'fuzz fixture password');
  const session = await ok('POST', '/sessions', key, { email: account.user.email, password: 'fuzz fixture password' });
  return {
    accountId: account.account.id,
    userKey: key,
    workflowId,
    ids: {
      fieldId: field.id,
      objectFieldId: people.fields[0].id,
      tagId: tag.id,
      objectTagId: option.id,
      viewId: view.id,
      tableViewId: tableView.id,
      aggId: aggregation.id,
      recordTypeId: people.recordTypes[0].id,
      /** The People Object's id: every account has an Object named `people`, but only this one has this id. */
      objectId: people.id,
      rowId: person.id,
      tableRowId: row.id,
      activityId: activity.id,
      taskId: task.id,
      workflowId,
      nodeId: graph.nodes[0].nodeId,
      variableId: variable.id,
      relation: 'Company',
      webhookId: webhook.id,
      subscriptionId: 'tsub_00000000000000000000000000000000',
      agentId: agent.id,
      flowId: flow.id,
      flowNodeId: 'trigger_intent_1',
      agentVariableId: agentVariable.id,
      intentId: intent.id,
      channel: 'livechat',
      conversationId: conversation.id,
      sessionId: session.id,
      '/custom-tools': tool.id,
      '/playbooks': playbook.id,
      '/knowledge-bases': knowledgeBase.id,
    },
  };
}

/** The path with each parameter named after a resource of the fixture (`:name` is the Table or the Object). */
export function pathFor(path: string, fixture: FuzzFixture): string {
  const objects = path.startsWith('/objects');
  const agents = path.startsWith('/agents');
  /** `/custom-tools`, `/playbooks`, `/knowledge-bases`: `{id}` is the fixture's resource of that kind. */
  const resource = /^\/(custom-tools|playbooks|knowledge-bases)\//.test(path) ? path.slice(0, path.indexOf('/', 1)) : undefined;
  return path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    if (name === 'name') return objects ? 'people' : 'fuzz';
    if (name === 'id' && resource) return String(fixture.ids[resource]);
    if (name === 'id' && path.includes('/activities/')) return String(fixture.ids.activityId);
    if (name === 'id' && path.includes('/tasks/')) return String(fixture.ids.taskId);
    if (name === 'id' && path.includes('/files/')) return '1'; // no file: the paths of files name the Object first
    if (name === 'id') return String(objects ? fixture.ids.rowId : fixture.ids.tableRowId);
    if (name === 'rowId') return String(objects ? fixture.ids.rowId : fixture.ids.tableRowId);
    if (agents && name === 'nodeId') return String(fixture.ids.flowNodeId);
    if (objects && (name === 'fieldId' || name === 'tagId')) return String(fixture.ids[name === 'fieldId' ? 'objectFieldId' : 'objectTagId']);
    if (!objects && name === 'viewId') return String(fixture.ids.tableViewId);
    if (agents && name === 'variableId') return String(fixture.ids.agentVariableId);
    return String(fixture.ids[name] ?? '1');
  });
}

/**
 * A digest of every row the account owns: tables with an `account_id`, rows reached through its tables, fields,
 * workflows and agents, and its physical row and link tables. API keys are left out (their last use changes on every call).
 */
export async function accountFingerprint(accountId: number): Promise<string> {
  const knex = harness().orm.em.getKnex();
  const columns: { table_name: string; column_name: string }[] = (
    await knex.raw(
      `select table_name, column_name from information_schema.columns
        where table_schema = 'public' and column_name in ('account_id', 'table_id', 'field_id', 'workflow_id', 'agent_id') and table_name <> 'api_keys'`,
    )
  ).rows;
  const byTable = new Map<string, Set<string>>();
  for (const c of columns) byTable.set(c.table_name, (byTable.get(c.table_name) ?? new Set()).add(c.column_name));
  const scopes: string[] = [];
  for (const [table, cols] of [...byTable].sort(([a], [b]) => a.localeCompare(b))) {
    const where = cols.has('account_id')
      ? 'account_id = :account'
      : cols.has('table_id')
        ? 'table_id in (select id from data_tables where account_id = :account)'
        : cols.has('field_id')
          ? 'field_id in (select f.id from data_fields f join data_tables t on t.id = f.table_id where t.account_id = :account)'
          : cols.has('workflow_id')
            ? 'workflow_id in (select id from workflows where account_id = :account)'
            : 'agent_id in (select id from agents where account_id = :account)';
    scopes.push(`select '${table}' as t, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from "${table}" x where ${where}`);
  }
  const tables: { id: number }[] = (await knex.raw('select id from data_tables where account_id = ?', [accountId])).rows;
  const physical: { table_name: string }[] = tables.length
    ? (
        await knex.raw(
          `select table_name from information_schema.tables where table_schema = 'data' and substring(table_name from '_([0-9]+)$')::int = any(?::int[])`,
          [tables.map((t) => t.id)],
        )
      ).rows
    : [];
  for (const { table_name } of physical.sort((a, b) => a.table_name.localeCompare(b.table_name))) {
    scopes.push(`select 'data.${table_name}' as t, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from data."${table_name}" x`);
  }
  const rows: { t: string; h: string }[] = (await knex.raw(scopes.join(' union all '), { account: accountId })).rows;
  return rows.map((r) => `${r.t}:${r.h}`).join(',');
}
