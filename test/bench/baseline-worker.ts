/**
 * Worker process of the plain-Temporal baseline (TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE, DATABASE_URL), and the
 * baseline's HTTP handlers: `POST /hook` starts `webhookShaped` with the body as payload and answers 200 (and the
 * workflow id) once it has completed; `POST /conversations` starts a `conversationShaped` workflow answering
 * BASELINE_REPLY and answers its id; `POST /conversations/<id>/messages` sends the body's `text` as a turn (an
 * update) and answers the reply. Prints `ready <port>`.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pg from 'pg';
import { baselineActivities } from './baseline-activities.js';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const taskQueue = process.env.TEMPORAL_TASK_QUEUE!;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('create table if not exists baseline_events (id bigserial primary key, payload jsonb, answer jsonb)');
await pool.query('create table if not exists baseline_messages (id bigserial primary key, role text, text text, turn int)');
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('./baseline.workflow.ts', import.meta.url)),
  activities: baselineActivities(pool),
});
const client = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
const serviceUrl = process.env.BASELINE_SERVICE_URL ?? '';
let runs = 0;
const reply = process.env.BASELINE_REPLY ?? '';
const answer = (res: ServerResponse, work: Promise<unknown>) =>
  work.then(
    (body) => res.writeHead(200).end(JSON.stringify(body)),
    (error: Error) => res.writeHead(500).end(JSON.stringify({ error: error.message })),
  );
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString() || 'null');
    const workflowId = `baseline-${process.pid}-${(runs += 1)}`;
    const turn = /^\/conversations\/([^/]+)\/messages$/.exec(req.url ?? '');
    if (req.url === '/hook') {
      const run = client.workflow.execute('webhookShaped', { taskQueue, workflowId, args: [{ serviceUrl, payload: body }] });
      void answer(
        res,
        run.then(() => ({ workflowId })),
      );
    } else if (req.url === '/conversations') {
      void answer(
        res,
        client.workflow.start('conversationShaped', { taskQueue, workflowId, args: [{ reply }] }).then(() => ({ id: workflowId })),
      );
    } else if (turn) {
      void answer(
        res,
        client.workflow
          .getHandle(turn[1]!)
          .executeUpdate('turn', { args: [body.text] })
          .then((text) => ({ text })),
      );
    } else res.writeHead(404).end();
  });
});
server.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as AddressInfo).port}`));
await worker.run(); // until SIGTERM
server.close();
await connection.close();
await pool.end();
process.exit(0);
