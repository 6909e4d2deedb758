/** Heartbeats of a long activity: they let Temporal notice a dead worker within the heartbeat timeout, and deliver cancellation. */
import { Context } from '@temporalio/activity';

/** Runs `work` while heartbeating every 2 s (local activities have no heartbeats). */
export async function heartbeating<T>(work: (context: Context) => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), 2_000);
  try {
    return await work(context);
  } finally {
    clearInterval(beat);
  }
}
