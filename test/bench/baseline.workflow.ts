/** The plain-Temporal baseline of the automation benchmark: N empty activities in sequence, nothing else. */
import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4 },
});

export async function plainChain(steps: number): Promise<number> {
  for (let i = 0; i < steps; i += 1) await noop();
  return steps;
}
