/** Node validation through HTTP: cross-resource ids, DYNAMIC_TABLES and SEND_MESSAGING_MESSAGE. */
import { expect } from 'chai';
import { connectMessagingNumber, addMessagingTemplate } from '../../db/channels/numbers-and-pages.service.js';
import { connectAccount } from '../../db/catalogs/integrations.service.js';
import { harness } from '../setup/harness.js';
import { newAgent } from './agents/agent-calls.helpers.js';
import { call, newAccount } from '../setup/http.js';
import { addNode, expectRefused, newVariable, newWorkflow, type Account, type RefusedCase } from './workflow-nodes.helpers.js';

const em = () => harness().orm.em.fork();
const AGENT = '8f14e45f-ceea-467f-a0e6-2b3c4d5e6f70';

async function newWebhook(acct: Account, name: string): Promise<string> {
  const res = await call('POST', '/incoming-webhooks', { key: acct.userKey, body: { name } });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

describe('workflow nodes: cross-resource ids', () => {
  let a: Account;
  let b: Account;
  before(async () => {
    a = await newAccount();
    b = await newAccount();
  });

  it("refuses webhooks, connected accounts, agents, custom tools and knowledge bases that are not the account's", async () => {
    const id = await newWorkflow(a);
    const mine = await newWebhook(a, 'Orders');
    const theirs = await newWebhook(b, 'Theirs');
    const gmail = await connectAccount(em(), a.account.id, { toolkit: 'GMAIL', label: 'support@acme.test' });
    const slack = await connectAccount(em(), b.account.id, { toolkit: 'SLACK', label: 'Other workspace' });
    const hook = (triggerByWebhookIds: unknown) => ({ type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds } });
    const cases: RefusedCase[] = [
      [hook([mine, theirs]), 'data.triggerByWebhookIds[1]', 'not_found', new RegExp(`^no incoming webhook "${theirs}" in this account$`)],
      [hook([mine, 'wh_doesnotexist']), 'data.triggerByWebhookIds[1]', 'not_found', /no incoming webhook "wh_doesnotexist"/],
      [hook([42]), 'data.triggerByWebhookIds[0]', 'invalid', /^must be a string$/],
      [hook(mine), 'data.triggerByWebhookIds', 'invalid', /must be an array/],
      [
        { type: 'API', data: { url: 'https://x.test', connectedAccountId: slack.id } },
        'data.connectedAccountId',
        'not_found',
        new RegExp(`^no connected account ${slack.id} in this account$`),
      ],
      [{ type: 'TOOLS_AI', data: { connectedAccountId: 'gmail' } }, 'data.connectedAccountId', 'invalid', /^must be an integer or null$/],
      [
        { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: [AGENT] } },
        'data.triggeredByAgentIds[0]',
        'not_found',
        new RegExp(`^no agent "${AGENT}" in this account$`),
      ],
      [{ type: 'TOOLS_AI', data: { customToolIds: [7] } }, 'data.customToolIds[0]', 'not_found', /^no custom tool 7 in this account$/],
      [
        { type: 'TOOLS_AI', data: { knowledgeBaseIds: ['kb_1'] } },
        'data.knowledgeBaseIds[0]',
        'not_found',
        /^no knowledge base "kb_1" in this account$/,
      ],
    ];
    await expectRefused(a, id, cases);
    expect((await addNode(a, id, hook([mine]))).data.triggerByWebhookIds).to.deep.equal([mine]);
    await addNode(a, id, { type: 'TOOLS_AI', data: { connectedAccountId: gmail.id, customToolIds: [], knowledgeBaseIds: [] } });
    await addNode(a, id, { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: [] } });
    await addNode(a, id, { type: 'API', data: { url: 'https://x.test', connectedAccountId: null, customToolIds: null, variables: null } });
  });

  it('checks DYNAMIC_TABLES: action, table and record type of the account, and the variables it interpolates', async () => {
    const id = await newWorkflow(a);
    await newVariable(a, id, 'person_name');
    const people = (await call('GET', '/objects/people', { key: a.userKey })).body;
    const companies = (await call('GET', '/objects/companies', { key: a.userKey })).body;
    const theirPeople = (await call('GET', '/objects/people', { key: b.userKey })).body;
    const plain = (await call('POST', '/tables', { key: a.userKey, body: { name: 'leads' } })).body;
    const peopleType = people.recordTypes[0].id;
    const table = (data: Record<string, unknown>) => ({
      type: 'DYNAMIC_TABLES',
      data: { action: 'UPDATE', tableId: people.id, rowId: '{trigger_payload}', ...data },
    });
    const cases: RefusedCase[] = [
      [table({ action: undefined }), 'data.action', 'required', /one of CREATE, UPDATE, DELETE, SEARCH, CHANGE_RECORD_TYPE/],
      [table({ action: 'MERGE' }), 'data.action', 'invalid', /^must be one of CREATE, UPDATE, DELETE, SEARCH, CHANGE_RECORD_TYPE$/],
      [table({ tableId: undefined }), 'data.tableId', 'required', /is required/],
      [table({ tableId: theirPeople.id }), 'data.tableId', 'not_found', new RegExp(`^no Table or Object ${theirPeople.id} in this account$`)],
      [table({ recordTypeId: theirPeople.recordTypes[0].id }), 'data.recordTypeId', 'not_found', /in this account/],
      [table({ tableId: companies.id, recordTypeId: peopleType }), 'data.recordTypeId', 'invalid', /does not belong to "Companies"/],
      [table({ action: 'CHANGE_RECORD_TYPE' }), 'data.recordTypeId', 'required', /CHANGE_RECORD_TYPE/],
      [table({ rowId: '{row_ref}' }), 'data.rowId', 'not_found', /^variable "row_ref" does not exist$/],
      [table({ action: 'SEARCH', search: 'name:{who}' }), 'data.search', 'not_found', /variable "who"/],
      [table({ rowData: { Name: '{person_name}', Email: '{email}' } }), 'data.rowData.Email', 'not_found', /variable "email"/],
      [table({ rowData: 'Ada' }), 'data.rowData', 'invalid', /must be an object/],
    ];
    await expectRefused(a, id, cases);
    const saved = await addNode(a, id, table({ action: 'CHANGE_RECORD_TYPE', recordTypeId: peopleType, rowData: { Name: '{person_name}' } }));
    expect(saved.data).to.include({ tableId: people.id, recordTypeId: peopleType });
    await addNode(a, id, { type: 'DYNAMIC_TABLES', alias: 'find', data: { action: 'SEARCH', tableId: plain.id, search: '{person_name}' } });
  });
});

describe('workflow nodes: SEND_MESSAGING_MESSAGE', () => {
  it('needs a recipient, a sending number of the account with an agent, an APPROVED template, and known template keys', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const [agentA, agentB] = [(await newAgent(a)).id, (await newAgent(b)).id];
    await connectMessagingNumber(em(), a.account.id, { phoneNumber: '+14155550100', phoneNumberId: '1090001', assistantId: agentA });
    await connectMessagingNumber(em(), a.account.id, { phoneNumber: '+14155550101', phoneNumberId: '1090002' });
    await connectMessagingNumber(em(), a.account.id, {
      phoneNumber: '+14155550102',
      phoneNumberId: '1090003',
      assistantId: agentA,
      canSendMessages: false,
    });
    await connectMessagingNumber(em(), b.account.id, { phoneNumber: '+442071234567', phoneNumberId: '2090001', assistantId: agentB });
    await addMessagingTemplate(em(), a.account.id, { name: 'order_update', language: 'en', bodyParams: 1 });
    await addMessagingTemplate(em(), a.account.id, { name: 'promo_pending', language: 'en', status: 'PENDING' });
    await addMessagingTemplate(em(), b.account.id, { name: 'welcome', language: 'en' });
    const id = await newWorkflow(a);
    const base = {
      personName: 'Ada',
      phoneNumber: '+14155550123',
      phoneNumberId: '1090001',
      template: 'order_update',
      templateVariables: { body: { 1: 'Ada' } },
    };
    const send = (data: Record<string, unknown>) => ({ type: 'SEND_MESSAGING_MESSAGE', data: { ...base, ...data } });
    const cases: RefusedCase[] = [
      [send({ recipientMode: 'EMAIL' }), 'data.recipientMode', 'invalid', /^must be one of PHONE_NUMBER, PEOPLE_RECORD$/],
      [send({ personName: undefined }), 'data.personName', 'required', /^is required when recipientMode is PHONE_NUMBER$/],
      [send({ recipientMode: 'PHONE_NUMBER', phoneNumber: '' }), 'data.phoneNumber', 'required', /PHONE_NUMBER/],
      [send({ phoneNumber: '4155550123' }), 'data.phoneNumber', 'invalid', /full international format/],
      [send({ phoneNumber: '+1 415 555 0123' }), 'data.phoneNumber', 'invalid', /\+ and 7 to 15 digits/],
      [send({ phoneNumber: '+123456' }), 'data.phoneNumber', 'invalid', /international/],
      [send({ recipientMode: 'PEOPLE_RECORD' }), 'data.peopleRowId', 'required', /^is required when recipientMode is PEOPLE_RECORD$/],
      [send({ personName: 'Dear {first_name}' }), 'data.personName', 'not_found', /^variable "first_name" does not exist$/],
      [send({ phoneNumberId: undefined }), 'data.phoneNumberId', 'required', /is required/],
      [send({ phoneNumberId: '2090001' }), 'data.phoneNumberId', 'not_found', /^no messaging number with phoneNumberId 2090001 in this account$/],
      [send({ phoneNumberId: '1090002' }), 'data.phoneNumberId', 'invalid', /^number \+14155550101 has no assistantId/],
      [
        send({ phoneNumberId: '1090003' }),
        'data.phoneNumberId',
        'invalid',
        /^number \+14155550102 cannot send messages \(canSendMessages is false\)$/,
      ],
      [send({ template: undefined }), 'data.template', 'required', /APPROVED template/],
      [send({ template: 'promo_pending' }), 'data.template', 'not_found', /^no APPROVED template "promo_pending" in this account$/],
      [send({ template: 'welcome' }), 'data.template', 'not_found', /"welcome"/],
      [send({ templateVariables: { body: {}, footer: { 1: 'x' } } }), 'data.templateVariables.footer', 'invalid', /only header, body, buttons/],
      [send({ templateVariables: ['Ada'] }), 'data.templateVariables', 'invalid', /must be an object/],
      [send({ templateVariables: { body: { 1: '{order}' } } }), 'data.templateVariables.body.1', 'not_found', /variable "order"/],
    ];
    await expectRefused(a, id, cases);
    await addNode(a, id, send({}));
    const byRecord = await addNode(a, id, {
      type: 'SEND_MESSAGING_MESSAGE',
      alias: 'to person',
      data: {
        recipientMode: 'PEOPLE_RECORD',
        peopleRowId: '{trigger_payload}',
        phoneNumberId: '1090001',
        template: 'order_update',
        templateVariables: { header: {}, body: { 1: '{trigger_payload}' }, buttons: [] },
      },
    });
    expect(byRecord.data.recipientMode).to.equal('PEOPLE_RECORD');
    await addNode(a, id, { ...send({ phoneNumber: '{trigger_payload}' }), alias: 'interpolated' });
  });
});
