/** Worker process of the plain-Temporal baseline (TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE); prints `ready`. */
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
  workflowsPath: fileURLToPath(new URL('./baseline.workflow.ts', import.meta.url)),
  activities: { noop: async () => {} },
});
console.log('ready');
await worker.run();
await connection.close();
