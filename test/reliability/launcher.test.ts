import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { dropDatabase } from '../../db/database.js';
import { freePort } from '../setup/free-port.js';
import { harness, projectRoot } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';

interface Started {
  output: () => string;
  /** Sends Ctrl-C and resolves once the API no longer answers. */
  stop: () => Promise<void>;
}

/** Runs `npm start` as a user would, pointed at the test run's Temporal server and at a database of its own. */
async function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn('npm', ['start'], { cwd: projectRoot, env: { ...process.env, ...env }, detached: true });
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (text += c.toString()));
  const ready = (out: string) => out.includes('Press Ctrl-C to stop.');
  await waitUntil(
    async () => text,
    (out) => ready(out) || child.exitCode !== null,
    'npm start to be ready',
    60_000,
  );
  if (!ready(text)) throw new Error(`npm start exited with ${child.exitCode} before it was ready:\n${text}`);
  return {
    output: () => text,
    // Ctrl-C in a terminal signals the whole foreground process group.
    stop: async () => {
      process.kill(-child.pid!, 'SIGINT');
      const answers = () =>
        fetch(`http://127.0.0.1:${env.PORT}/healthz`).then(
          () => true,
          () => false,
        );
      await waitUntil(answers, (answered) => !answered, 'the API to stop answering after Ctrl-C', 20_000);
    },
  };
}

describe('npm start', function () {
  this.timeout(120_000);
  let port: string;
  let databaseUrl: string;
  let crashDatabaseUrl: string;

  before(async () => {
    // The kernel's pick: a port chosen at random could be one a cluster process or another service holds.
    port = String(await freePort());
    const url = new URL(harness().databaseUrl);
    url.pathname = `${url.pathname}_start_${randomBytes(2).toString('hex')}`;
    databaseUrl = url.toString();
    url.pathname = `${url.pathname}_crash`;
    crashDatabaseUrl = url.toString();
  });
  after(async () => {
    await dropDatabase(databaseUrl);
    await dropDatabase(crashDatabaseUrl);
  });

  it('creates and migrates the database, prints the URLs and, on the first start only, working keys; Ctrl-C stops it', async () => {
    const env = { PORT: port, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: harness().env.address, TEMPORAL_TASK_QUEUE: `start-${port}` };
    const first = await npmStart(env);
    const out = first.output();
    expect(out).to.include(`API base URL   http://127.0.0.1:${port}/public/v1`);
    expect(out).to.include('Temporal UI    http://127.0.0.1:8233');
    expect(out).to.include(`using the Temporal cluster at ${harness().env.address}`);
    expect(out).to.include('created the database');
    // On a laptop, automations may call the services beside them; npm start says so.
    expect(out).to.include("npm start allows calls to users' URLs to reach private addresses");
    expect(out).to.include('Outbound calls private addresses allowed (OUTBOUND_ALLOW_PRIVATE=true); link-local and metadata refused');
    const userKey = /USER key +(\S+)/.exec(out)?.[1];
    const generalKey = /GENERAL key +(\S+)/.exec(out)?.[1];
    const base = `http://127.0.0.1:${port}/public/v1`;
    const me = await call('GET', '/me', { key: userKey, baseUrl: base });
    expect(me.status).to.equal(200);
    expect(me.body.data.account.name).to.equal('Default');
    expect((await call('GET', '/me', { key: generalKey, baseUrl: base })).body.data.user).to.equal(null);
    expect((await call('GET', '/healthz?worker=true', { baseUrl: `http://127.0.0.1:${port}` })).status).to.equal(200);
    await first.stop();
    expect(first.output()).to.include('stopping...');

    const second = await npmStart(env);
    expect(second.output()).to.include('database schema is up to date');
    expect(second.output()).to.not.include('USER key');
    expect((await call('GET', '/me', { key: userKey, baseUrl: base })).status).to.equal(200);
    await second.stop();
  });

  it('restarts a worker killed by the kernel while the API keeps accepting webhooks, and the webhook then runs', async () => {
    const env = { PORT: port, DATABASE_URL: crashDatabaseUrl, TEMPORAL_ADDRESS: harness().env.address, TEMPORAL_TASK_QUEUE: `start-${port}-crash` };
    const started = await npmStart(env);
    try {
      const base = `http://127.0.0.1:${port}/public/v1`;
      const key = /USER key +(\S+)/.exec(started.output())![1];
      const hook = (await call('POST', '/incoming-webhooks', { key, baseUrl: base, body: { name: 'crash', useAuthentication: false } })).body;
      const id = (await call('POST', '/workflows', { key, baseUrl: base, body: { name: 'crash' } })).body.id;
      const trigger = { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } };
      expect((await call('POST', `/workflows/${id}/nodes`, { key, baseUrl: base, body: trigger })).status).to.equal(201);
      await call('POST', `/workflows/${id}/publish`, { key, baseUrl: base });
      expect((await call('PUT', `/workflows/${id}`, { key, baseUrl: base, body: { status: 'ACTIVE' } })).status).to.equal(200);

      const pid = Number(/(?<![-\w])worker started \(pid (\d+)\)/.exec(started.output())?.[1]);
      expect(pid).to.be.greaterThan(0);
      process.kill(pid, 'SIGKILL');
      await waitUntil(
        async () => started.output(),
        (out) => /(?<![-\w])worker exited unexpectedly \(SIGKILL\)/.test(out),
        'the launcher to see the crash',
      );
      // While the worker is down, the API still accepts webhooks (they wait in the outbox).
      const accepted = await call('POST', `/webhooks/${hook.id}`, { baseUrl: `http://127.0.0.1:${port}`, body: { n: 1 } });
      expect(accepted.status, accepted.text).to.be.oneOf([200, 202]);
      const out = await waitUntil(
        async () => started.output(),
        (o) => /(?<![-\w])worker restarted \(pid \d+\)/.test(o),
        'the worker to restart',
      );
      expect(out).to.include('restarting it in 1 s');
      const restarted = Number(/(?<![-\w])worker restarted \(pid (\d+)\)/.exec(out)![1]);
      expect(restarted).to.not.equal(pid);
      expect(() => process.kill(restarted, 0)).to.not.throw();
      const workflow = await waitUntil(
        async () => (await call('GET', `/workflows/${id}`, { key, baseUrl: base })).body,
        (w) => w.runsCount === 1,
        'the webhook accepted during the crash to run',
        60_000,
      );
      expect(workflow.runsFailedCount).to.equal(0);
    } finally {
      await started.stop();
    }
  });
});
