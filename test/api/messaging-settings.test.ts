/**
 * Per-number Cloud API settings of SEND_MESSAGING_MESSAGE, set with the admin command line, and the People record
 * a message to a phone number is logged on. Two local Cloud API servers stand in for two business accounts.
 */
import { expect } from 'chai';
import { addMessagingTemplate, connectMessagingNumber } from '../../db/channels/numbers-and-pages.service.js';
import { admin } from '../setup/admin-cli.js';
import { FakeMessagingServer } from '../setup/fake-messaging-server.js';
import { harness } from '../setup/harness.js';
import { newAgent } from './agents/agent-calls.helpers.js';
import { call, newAccount } from '../setup/http.js';
import { executeNodeAttempt } from '../setup/node-executions.js';
import { draftWorkflow } from './nodes/node-runs.helpers.js';

/** The message a node execution failed with (it must fail). */
async function failureOf(attempt: Promise<unknown>): Promise<string> {
  const error = await attempt.then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error, 'the execution should fail').to.be.instanceOf(Error);
  return error!.message;
}

describe('messaging per number and messages logged on People records', function () {
  this.timeout(60_000);
  const first = new FakeMessagingServer();
  const second = new FakeMessagingServer();

  before(async () => {
    await first.start();
    await second.start();
  });

  after(async () => {
    await first.stop();
    await second.stop();
  });

  async function account(numbers: string[]) {
    const a = await newAccount();
    const em = harness().orm.em.fork();
    const agent = (await newAgent(a)).id;
    for (const [i, phoneNumberId] of numbers.entries()) {
      await connectMessagingNumber(em, a.account.id, { phoneNumber: `+1415555020${i}`, phoneNumberId, assistantId: agent });
    }
    await addMessagingTemplate(em, a.account.id, { name: 'hello', language: 'en', bodyParams: 1 });
    return a;
  }

  const settings = (accountId: number, phoneNumberId: string, ...more: string[]) =>
    admin('messaging-settings', '--account', String(accountId), '--phone-number-id', phoneNumberId, ...more);

  it('each number sends through its own Cloud API with its own token, stored encrypted and never printed in full', async () => {
    const a = await account(['pn-first', 'pn-second', 'pn-global']);
    const tokens = ['first-token-secret-7c1d', 'second-token-secret-99ab'];
    const one = await settings(a.account.id, 'pn-first', '--base-url', `${first.baseUrl}/`, '--token', tokens[0]!);
    expect(one.code, one.stderr).to.equal(0);
    expect(one.stdout).to.include(first.baseUrl).and.include('…7c1d').and.not.include(tokens[0]!);
    const two = await settings(a.account.id, 'pn-second', '--base-url', second.baseUrl, '--token', tokens[1]!, '--json');
    expect(two.code, two.stderr).to.equal(0);
    expect(JSON.parse(two.stdout).settings).to.deep.equal({
      phoneNumberId: 'pn-second',
      phoneNumber: '+14155550201',
      cloudApiUrl: second.baseUrl,
      tokenHint: '…99ab',
    });
    const stored = (
      await harness()
        .orm.em.getKnex()
        .raw('select cloud_api_token_sealed as sealed from messaging_numbers where account_id = ? order by id', [a.account.id])
    ).rows.map((r: { sealed: string | null }) => r.sealed);
    expect(stored[2]).to.equal(null);
    for (const [i, sealed] of stored.slice(0, 2).entries()) expect(sealed).to.match(/^v1\./).and.not.include(tokens[i]!);

    const wf = await draftWorkflow(a.userKey);
    const send = (phoneNumberId: string, body: string) =>
      wf.node('SEND_MESSAGING_MESSAGE', {
        phoneNumberId,
        template: 'hello',
        personName: 'Ada',
        phoneNumber: '+14155550300',
        templateVariables: { body },
      });
    const globalBefore = harness().messaging.sent.length;
    for (const [phoneNumberId, body] of [
      ['pn-first', 'one'],
      ['pn-second', 'two'],
      ['pn-global', 'three'],
    ] as const) {
      const run = await wf.run(await send(phoneNumberId, body));
      expect(run.successful, JSON.stringify(run)).to.equal(true);
    }
    const seen = (server: FakeMessagingServer) =>
      server.sent.map((m) => [m.phoneNumberId, m.authorization, m.body.template.components[0].parameters[0].text]);
    expect(seen(first)).to.deep.equal([['pn-first', `Bearer ${tokens[0]}`, 'one']]);
    expect(seen(second)).to.deep.equal([['pn-second', `Bearer ${tokens[1]}`, 'two']]);
    expect(
      harness()
        .messaging.sent.slice(globalBefore)
        .map((m) => m.phoneNumberId),
      'numbers without settings use MESSAGING_API_URL',
    ).to.deep.equal(['pn-global']);

    // Clearing the settings sends through MESSAGING_API_URL again; a URL without a token is refused.
    expect((await settings(a.account.id, 'pn-first', '--clear')).code).to.equal(0);
    const urlOnly = await settings(a.account.id, 'pn-first', '--base-url', first.baseUrl);
    expect(urlOnly.code).to.equal(1);
    expect(urlOnly.stderr).to.match(/token is required/);
    const unknown = await settings(a.account.id, 'pn-missing', '--base-url', first.baseUrl, '--token', 'x-token-123456');
    expect([unknown.code, unknown.stderr]).to.satisfy(
      ([code, err]: [number, string]) => code === 1 && /no messaging number with phoneNumberId pn-missing/.test(err),
    );
  });

  it('fails with one clear message when neither the number nor the worker has a Cloud API, or the key cannot open the token', async () => {
    const a = await account(['pn-bare', 'pn-sealed']);
    expect((await settings(a.account.id, 'pn-sealed', '--base-url', first.baseUrl, '--token', 'sealed-token-0001')).code).to.equal(0);
    const data = (phoneNumberId: string) => ({ phoneNumberId, template: 'hello', personName: 'Bo', phoneNumber: '+14155550301' });
    const bare = await failureOf(
      executeNodeAttempt({ accountId: a.account.id, type: 'SEND_MESSAGING_MESSAGE', data: data('pn-bare'), executionKey: 'bare', messaging: null }),
    );
    expect(bare).to.equal(
      'Messaging is not configured for number pn-bare: set its Cloud API URL and token with `npm run admin -- messaging-settings`, ' +
        'or MESSAGING_API_URL and MESSAGING_API_TOKEN on the worker',
    );
    const sealed = await failureOf(
      executeNodeAttempt({
        accountId: a.account.id,
        type: 'SEND_MESSAGING_MESSAGE',
        data: data('pn-sealed'),
        executionKey: 'sealed',
        settingsKey: 'b2'.repeat(32),
      }),
    );
    expect(sealed).to.match(/token of number pn-sealed cannot be decrypted: the worker needs the SETTINGS_ENCRYPTION_KEY/);
  });

  it('in phone-number mode, logs the message on the People record with that phone number once, and says which record (or none)', async () => {
    const a = await account(['pn-7']);
    const person = await call('POST', '/objects/people/rows', { key: a.userKey, body: { 'First name': 'Grace', Phone: '+1 (415) 555-0177' } });
    expect(person.status, person.text).to.equal(201);
    const data = { phoneNumberId: 'pn-7', template: 'hello', phoneNumber: '+14155550177', personName: 'Grace', templateVariables: { body: 'hi' } };
    const before = harness().messaging.sent.length;
    const once = await executeNodeAttempt({ accountId: a.account.id, type: 'SEND_MESSAGING_MESSAGE', data, executionKey: 'phone-mode' });
    const retried = await executeNodeAttempt({ accountId: a.account.id, type: 'SEND_MESSAGING_MESSAGE', data, executionKey: 'phone-mode' }, 2);
    expect(once.output).to.deep.include({ to: '+14155550177', personRowId: person.body.id });
    expect(retried.output).to.deep.equal(once.output);
    expect(harness().messaging.sent.length - before).to.equal(1);
    const activities = (await call('GET', `/objects/people/rows/${person.body.id}/activities`, { key: a.generalKey })).body.agentry;
    expect(activities.map((x: any) => [x.type, x.autoGenerated, x.content])).to.deep.equal([
      ['MESSAGING', true, 'Sent template "hello" (en) to +14155550177: hi'],
    ]);

    const stranger = await executeNodeAttempt({
      accountId: a.account.id,
      type: 'SEND_MESSAGING_MESSAGE',
      data: { ...data, phoneNumber: '+14155550999' },
      executionKey: 'phone-mode-stranger',
    });
    expect(stranger.output).to.deep.include({ to: '+14155550999', personRowId: null });
    expect((await call('GET', `/objects/people/rows/${person.body.id}/activities`, { key: a.generalKey })).body.agentry).to.have.length(1);
  });
});
