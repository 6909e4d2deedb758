import { expect } from 'chai';
import { BoundTuner } from '../../worker/bound-tuner.js';

/** Runs `windows` saturated 10-second windows against a system whose completions per second `rateAt(bound)` gives. */
function climb(tuner: BoundTuner, rateAt: (bound: number) => number, windows: number): number[] {
  const bounds: number[] = [];
  for (let i = 0; i < windows; i += 1) bounds.push(tuner.observe({ completions: rateAt(tuner.bound) * 10, seconds: 10, saturated: true }));
  return bounds;
}

describe('admission bound tuner', () => {
  it('leaves the bound alone while runs do not wait for it', () => {
    const tuner = new BoundTuner({ min: 1, max: 32 }, 8);
    for (let i = 0; i < 5; i += 1) expect(tuner.observe({ completions: 50 * i, seconds: 10, saturated: false })).to.equal(8);
  });

  it('climbs to where more runs in flight stop adding completions, and stays near it', () => {
    // Throughput grows with the bound up to 24 runs in flight, then holds (more runs in flight only add waiting).
    const knee = 24;
    const bounds = climb(new BoundTuner({ min: 1, max: 64 }, 8), (b) => 5 * Math.min(b, knee), 40);
    const settled = bounds.slice(-20);
    expect(Math.min(...settled)).to.be.at.least(knee * 0.6);
    expect(Math.max(...settled)).to.be.at.most(knee * 1.6);
  });

  it('comes down from a bound where runs in flight hinder each other', () => {
    // Above 6 runs in flight every further run costs throughput (contention): the best bound is 6.
    const bounds = climb(new BoundTuner({ min: 1, max: 64 }, 40), (b) => (b <= 6 ? 10 * b : 60 - 3 * (b - 6)), 40);
    const settled = bounds.slice(-20);
    expect(Math.max(...settled)).to.be.at.most(10);
    expect(Math.min(...settled)).to.be.at.least(3);
  });

  it('keeps the bound within its limits', () => {
    const bounds = climb(new BoundTuner({ min: 2, max: 12 }, 8), (b) => 10 * b, 30);
    expect(Math.max(...bounds)).to.equal(12);
    expect(Math.min(...bounds)).to.be.at.least(2);
    const down = climb(new BoundTuner({ min: 2, max: 12 }, 8), () => 50, 30);
    expect(Math.min(...down)).to.equal(2);
  });
});
