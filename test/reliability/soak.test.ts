/**
 * The bounded soak (issue 42): `npm run soak`'s run, 90 s of workload (SOAK_MINUTES makes it longer), inside
 * `npm run test:cluster`: the scaled-out platform under a mixed workload while its processes are killed at random,
 * then the checker must find nothing lost, nothing done twice, streams that resumed whole, and memory that levels off.
 */
import { expect } from 'chai';
import { runSoak, soakOptions } from './soak/soak.js';

describe('a soak with random faults (real processes)', function () {
  this.timeout(900_000);

  it('the scaled-out platform under mixed work and random kills loses nothing and does nothing twice', async () => {
    const options = soakOptions(process.env, 1.5);
    const { checks, report } = await runSoak(options, () => {});
    console.log(report);
    const failed = checks.filter((c) => c.asserted && !c.ok).map((c) => `${c.name}: ${c.detail}`);
    expect(failed, report).to.deep.equal([]);
    // A stream check that saw no reconnection would prove nothing about resuming.
    expect(report).to.not.match(/ 0 reconnections/);
  });
});
