/** The plain-Temporal baselines of the automation benchmark: N empty activities in sequence, nothing else. */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4 };
const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '10 seconds', retry });
const local = proxyLocalActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '30 seconds', retry });

/** N empty (regular) activities. */
export async function plainChain(steps: number): Promise<number> {
  for (let i = 0; i < steps; i += 1) await noop();
  return steps;
}

/** N empty local activities: the Temporal primitive agentry runs no-I/O nodes on. */
export async function plainLocalChain(steps: number): Promise<number> {
  for (let i = 0; i < steps; i += 1) await local.noop();
  return steps;
}
