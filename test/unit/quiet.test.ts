import { expect } from 'chai';
import { quiet } from '../setup/quiet.js';

/** `quiet` must not hide what it waits out: a late change is answered (so the test's assertion fails), never skipped. */
describe('quiet (waiting for nothing else to happen)', () => {
  it('answers the value once it has stayed the same for the settle window', async () => {
    const started = Date.now();
    expect(await quiet(() => 1, { settleMs: 200, intervalMs: 20 })).to.equal(1);
    expect(Date.now() - started).to.be.at.least(200);
  });

  it('answers a value that changed late, after it settled again (an extra run is seen, not missed)', async () => {
    const started = Date.now();
    const runs = () => (Date.now() - started < 150 ? 1 : 2);
    expect(await quiet(runs, { settleMs: 200, intervalMs: 20 })).to.equal(2);
    expect(Date.now() - started).to.be.at.least(350);
  });

  it('waits while something is busy, restarting the settle window when it goes idle', async () => {
    const started = Date.now();
    const pending = () => (Date.now() - started < 300 ? 1 : 0);
    expect(await quiet(() => 'same', { settleMs: 100, intervalMs: 20, busy: [pending] })).to.equal('same');
    expect(Date.now() - started).to.be.at.least(400);
  });

  it('fails, naming what it saw last, when the system never settles', async () => {
    let n = 0;
    const error = await quiet(() => ++n, { settleMs: 100, timeoutMs: 300, intervalMs: 20, what: 'the counter' }).catch((e: Error) => e);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/^the counter was not quiet after 300 ms: last saw \d+/);
  });
});
