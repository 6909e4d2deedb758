import { expect } from 'chai';
import { ApiKey } from '../../db/accounts/api-key.entity.js';
import { MAX_USER_KEYS, issueUserKey } from '../../db/accounts/api-keys.service.js';
import { harness } from '../setup/harness.js';
import { newAccount } from '../setup/http.js';

describe('API key limits under concurrency', () => {
  it('never lets concurrent issues exceed 5 live USER keys per user', async () => {
    const acct = await newAccount(); // holds one USER key already
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        harness()
          .orm.em.fork()
          .transactional((tx) => issueUserKey(tx, acct.user.id)),
      ),
    );
    const issued = attempts.filter((a) => a.status === 'fulfilled');
    const refused = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(issued).to.have.length(MAX_USER_KEYS - 1);
    expect(refused).to.have.length(8 - (MAX_USER_KEYS - 1));
    for (const r of refused) expect((r.reason as Error).message).to.match(/maximum/);
    const live = await harness().orm.em.fork().count(ApiKey, { user: acct.user.id, revokedAt: null });
    expect(live).to.equal(MAX_USER_KEYS);
  });
});
