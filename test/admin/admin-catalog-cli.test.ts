import { expect } from 'chai';
import { admin } from '../setup/admin-cli.js';
import { call, newAccount } from '../setup/http.js';
import { newAgent } from '../api/agents/agent-calls.helpers.js';

describe('admin command line: catalog verbs', function () {
  this.timeout(60_000);

  it('connect-number --json prints one JSON object and the number shows up in GET /channels', async () => {
    const acct = await newAccount();
    const agent = (await newAgent(acct)).id;
    const res = await admin(
      'connect-number',
      '--account',
      String(acct.account.id),
      '--phone',
      '+14155550199',
      '--phone-number-id',
      '555001',
      '--assistant',
      agent,
      '--display-name',
      'Sales line',
      '--json',
    );
    expect(res.code, res.stderr).to.equal(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out)).to.deep.equal(['number']);
    expect(out.number).to.include({
      phoneNumber: '+14155550199',
      phoneNumberId: '555001',
      assistantId: agent,
      displayName: 'Sales line',
      canSendMessages: true,
    });

    const channels = await call('GET', '/channels', { key: acct.generalKey });
    expect(channels.body.agentry.numbers).to.deep.equal([out.number]);

    const muted = await admin(
      'connect-number',
      '--account',
      String(acct.account.id),
      '--phone',
      '+14155550198',
      '--phone-number-id',
      '555002',
      '--cannot-send',
      '--json',
    );
    expect(JSON.parse(muted.stdout).number).to.include({ canSendMessages: false, assistantId: null });

    const duplicate = await admin(
      'connect-number',
      '--account',
      String(acct.account.id),
      '--phone',
      '+14155550197',
      '--phone-number-id',
      '555001',
      '--json',
    );
    expect(duplicate.code).to.equal(1);
    expect(duplicate.stdout).to.equal('');
    expect(duplicate.stderr).to.match(/already has a number with phoneNumberId 555001/);

    const missing = await admin('connect-number', '--account', String(acct.account.id), '--phone', '+14155550196');
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/--phone-number-id is required/);
  });

  it('connect-account, add-template and add-social fill the other per-account catalogs', async () => {
    const acct = await newAccount();
    const account = String(acct.account.id);
    const connected = JSON.parse(
      (await admin('connect-account', '--account', account, '--toolkit', 'hubspot', '--label', 'Acme portal', '--external-id', 'ca_hs_1', '--json'))
        .stdout,
    );
    expect(connected.connectedAccount).to.include({ toolkit: 'HUBSPOT', label: 'Acme portal', externalId: 'ca_hs_1', status: 'ACTIVE' });
    const template = JSON.parse(
      (await admin('add-template', '--account', account, '--name', 'order_shipped', '--language', 'en', '--body-params', '3', '--json')).stdout,
    );
    expect(template.template).to.include({ name: 'order_shipped', status: 'APPROVED' });
    expect(template.template.components.body.parameters).to.have.length(3);
    await admin('add-template', '--account', account, '--name', 'draft_promo', '--language', 'en', '--status', 'PENDING');
    const social = JSON.parse((await admin('add-social', '--account', account, '--platform', 'facebook', '--name', 'Acme page', '--json')).stdout);
    expect(social.socialAccount).to.include({ platform: 'FACEBOOK', name: 'Acme page' });

    expect((await call('GET', '/integrations', { key: acct.userKey })).body.agentry).to.deep.equal([connected.connectedAccount]);
    expect((await call('GET', '/channels/messaging/templates', { key: acct.userKey })).body.agentry).to.deep.equal([template.template]);
    expect((await call('GET', '/channels', { key: acct.userKey })).body.agentry.socialAccounts).to.deep.equal([social.socialAccount]);

    const badParams = await admin('add-template', '--account', account, '--name', 'x', '--language', 'en', '--body-params', 'many');
    expect(badParams.code).to.equal(2);
    expect(badParams.stderr).to.match(/--body-params must be a non-negative integer/);
  });
});
