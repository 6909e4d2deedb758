import { expect } from 'chai';
import { admin } from '../setup/admin-cli.js';
import { call, newAccount } from '../setup/http.js';
import { awaitRun, ledgerRuns } from '../setup/runs.js';

describe('admin credits: the balance that stops runs with insufficient_credits', function () {
  this.timeout(60_000);

  it('shows unlimited by default; at 0 runs stop before any node; --unlimited lets them run again', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const shown = await admin('credits', '--account', String(a.account.id), '--json');
    expect(JSON.parse(shown.stdout)).to.deep.equal({ accountId: a.account.id, creditBalance: null });
    expect((await admin('credits', '--account', String(a.account.id), '--set', '0')).stdout.trim()).to.equal(`account ${a.account.id}: 0 credits`);

    const id = (await call('POST', '/workflows', { key, body: { name: 'Costly' } })).body.id;
    await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } } });
    const stopped = await awaitRun((await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: {} })).body.id);
    expect(stopped.successful).to.equal(false);
    expect(stopped.insufficientCredits).to.equal(true);
    expect(stopped.nodeResults).to.deep.equal([]);
    expect(stopped.error!.message).to.match(/^Insufficient credits/);

    expect((await admin('credits', '--account', String(a.account.id), '--unlimited')).stdout.trim()).to.equal(
      `account ${a.account.id}: unlimited credits`,
    );
    const ran = await awaitRun((await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: {} })).body.id);
    expect(ran.successful).to.equal(true);
    expect((await ledgerRuns(id)).map((r) => r.status)).to.deep.equal(['failed', 'successful']);
    expect((await admin('credits', '--account', String(a.account.id), '--set', 'lots')).code).to.equal(2);
  });
});
