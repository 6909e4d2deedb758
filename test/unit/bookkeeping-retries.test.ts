import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/activity';
import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment, defaultActivityInfo } from '@temporalio/testing';
import { failsAfter } from '../../activities/fails-after.js';

const attempt = (n: number, error: Error) =>
  new MockActivityEnvironment({ ...defaultActivityInfo, attempt: n }, { logger: new DefaultLogger('ERROR') })
    .run(
      failsAfter(4, async () => {
        throw error;
      }),
    )
    .then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

describe('failsAfter: bookkeeping retried until the database answers, other failures as many times as before', () => {
  it('lets the database being away be retried, however many attempts it took', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(await attempt(40, down)).to.equal(down);
  });

  it('fails another failure for good at its last attempt, with its message, retryable before', async () => {
    const bug = new TypeError('Cannot read properties of undefined');
    expect(await attempt(3, bug)).to.equal(bug);
    const last = await attempt(4, bug);
    expect(last).to.be.instanceOf(ApplicationFailure);
    expect(last).to.include({ message: bug.message, type: 'TypeError', nonRetryable: true });
  });
});
