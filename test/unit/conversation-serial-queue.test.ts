import { expect } from 'chai';
import { SerialQueue } from '../../workflows/conversation/serial-queue.js';

/**
 * The workflow's `condition` with plain promises: resolves once `ready()` holds, looked at again after the
 * promises of the moment have settled (the SDK looks at its conditions after each pass of the workflow's microtasks).
 */
function conditions() {
  let waits = 0;
  const waitUntil = (ready: () => boolean) => {
    waits += 1;
    return new Promise<void>((resolve) => {
      const look = () => (ready() ? resolve() : setImmediate(look));
      look();
    });
  };
  return { waitUntil, waits: () => waits };
}

/** A promise the test settles when it chooses. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('conversation: the serial queue of updates', () => {
  it('runs updates one at a time in arrival order, a later one waiting for a slow earlier one', async () => {
    const queue = new SerialQueue(conditions().waitUntil);
    const log: string[] = [];
    const first = deferred();
    const work = (name: string, until?: Promise<void>) => async () => {
      log.push(`${name} starts`);
      await until;
      log.push(`${name} ends`);
      return name;
    };
    const answers = [queue.run(work('a', first.promise)), queue.run(work('b')), queue.run(work('c'))];
    await settle();
    expect(log).to.deep.equal(['a starts']);
    first.resolve();
    expect(await Promise.all(answers)).to.deep.equal(['a', 'b', 'c']);
    expect(log).to.deep.equal(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  });

  it('is busy while an update runs or waits, and not once all have settled', async () => {
    const queue = new SerialQueue(conditions().waitUntil);
    expect(queue.busy()).to.equal(false);
    const first = deferred();
    const running = queue.run(() => first.promise);
    const waiting = queue.run(async () => 'second');
    expect(queue.busy()).to.equal(true);
    first.resolve();
    await running;
    expect(queue.busy()).to.equal(true);
    await waiting;
    expect(queue.busy()).to.equal(false);
  });

  it('serves the next update after one fails; only its own caller sees the failure', async () => {
    const queue = new SerialQueue(conditions().waitUntil);
    const failing = queue.run(async () => {
      throw new Error('the turn failed');
    });
    const next = queue.run(async () => 'answered');
    expect(await failing.catch((e: Error) => e.message)).to.equal('the turn failed');
    expect(await next).to.equal('answered');
    expect(queue.busy()).to.equal(false);
  });

  it('waits on a condition only when another update is being served', async () => {
    const { waitUntil, waits } = conditions();
    const queue = new SerialQueue(waitUntil);
    await queue.run(async () => 1);
    await queue.run(async () => 2);
    expect(waits()).to.equal(0);
    const first = deferred();
    const running = queue.run(() => first.promise);
    const queued = queue.run(async () => 3);
    expect(waits()).to.equal(1);
    first.resolve();
    await Promise.all([running, queued]);
  });
});
