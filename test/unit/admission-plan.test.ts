import { expect } from 'chai';
import { planAdmission, type AdmissionCandidate } from '../../worker/admission-plan.js';

const events = (...automations: number[][]): AdmissionCandidate[] => automations.map((automationIds, i) => ({ eventId: `e${i}`, automationIds }));
const admitted = (candidates: AdmissionCandidate[], free: number, inFlight = 0, limits: [number, number, number][] = []) => [
  ...planAdmission(candidates, { free, inFlight, limits: new Map(limits.map(([id, limit, n]) => [id, { limit, inFlight: n }])) }),
];

describe('admission plan', () => {
  it('admits events in order while their runs fit, passes events that start nothing, and keeps the order after the first that does not fit', () => {
    expect(admitted(events([1], [], [2, 3], [4], []), 2)).to.deep.equal(['e0', 'e1', 'e4']);
    expect(admitted(events([1], [2]), 0, 5)).to.deep.equal([]);
  });

  it('admits an event with more runs than could ever be free when nothing else is in flight', () => {
    expect(admitted(events([1, 2, 3]), 2)).to.deep.equal(['e0']);
    expect(admitted(events([1, 2, 3]), 2, 1)).to.deep.equal([]);
  });

  it("holds a workflow at its limit and its later events, and lets other workflows' events by", () => {
    // Workflow 7 allows one run and has none in flight: its first event goes, the next two wait; workflow 8 goes on.
    expect(admitted(events([7], [7], [8], [7]), 10, 0, [[7, 1, 0]])).to.deep.equal(['e0', 'e2']);
    expect(admitted(events([7], [8]), 10, 1, [[7, 1, 1]])).to.deep.equal(['e1']);
    // An event that starts a limited and a free workflow waits for both; later events of the free one wait behind it.
    expect(admitted(events([7, 8], [8], [9]), 10, 1, [[7, 1, 1]])).to.deep.equal(['e2']);
  });
});

describe('admission plan of background runs', () => {
  const background = (...automations: number[][]): AdmissionCandidate[] =>
    automations.map((automationIds, i) => ({ eventId: `b${i}`, automationIds, background: true }));
  const plan = (candidates: AdmissionCandidate[], free: number, backgroundFree: number, inFlight = 0) => [
    ...planAdmission(candidates, { free, inFlight, limits: new Map(), backgroundFree }),
  ];

  it("admits background events only within the background runs' share, after the others", () => {
    // Ten slots free, two of them for background runs: both fresh events go, then two background ones.
    expect(plan([...events([1], [2]), ...background([3], [3], [3])], 10, 2)).to.deep.equal(['e0', 'e1', 'b0', 'b1']);
    // The share already filled by runs in flight: no background event goes, however many slots are free.
    expect(plan(background([3], [3]), 10, 0, 2)).to.deep.equal([]);
    // Fresh events take the last free slots: the background ones wait though their share is free.
    expect(plan([...events([1], [2]), ...background([3])], 2, 2)).to.deep.equal(['e0', 'e1']);
  });
});
