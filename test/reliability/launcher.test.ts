/**
 * `npm start` as a user runs it, while another `npm start` runs on the same machine, as a developer keeps one open:
 * the suite holds the default ports of a running one (API 3000, Temporal 7233 and its UI 8233, the workers' metrics
 * 9464 to 9466) for its whole run, and each platform it starts opens only ports chosen free and given through the
 * environment (test/setup/free-port.ts). A suite file of `npm test`, on a harness of its own, runs beside them too.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:net';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { dropDatabase } from '../../db/database.js';
import { freePort, freePortRun, hold } from '../setup/free-port.js';
import { harness, projectRoot } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';

/** The ports a running `npm start` holds by default (README, Configuration; launcher/launcher.ts). */
const NPM_START_PORTS = [3000, 7233, 8233, 9464, 9465, 9466];

interface Started {
  output: () => string;
  /** Sends Ctrl-C and resolves once every process of it has exited. */
  stop: () => Promise<void>;
}

/** Whether any process of the process group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The ports one `npm start` opens, chosen free: the API's, and its workers' metrics (the runs worker's own and its
 * Temporal SDK's, and the turns worker's, which the launcher puts 2 above the runs worker's).
 */
async function ownPorts(): Promise<{ PORT: string; WORKER_METRICS_PORT: string; TEMPORAL_SDK_METRICS_PORT: string }> {
  const metrics = await freePortRun(3);
  let api = await freePort();
  while (api >= metrics && api < metrics + 3) api = await freePort();
  return { PORT: String(api), WORKER_METRICS_PORT: String(metrics), TEMPORAL_SDK_METRICS_PORT: String(metrics + 1) };
}

/** Runs `npm start` as a user would, pointed at the test run's Temporal server and at a database of its own. */
async function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn('npm', ['start'], { cwd: projectRoot, env: { ...process.env, ...env }, detached: true });
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (text += c.toString()));
  // Ctrl-C in a terminal signals the whole foreground process group; the next start may take the same ports. What
  // still runs 30 s later is killed, so that a failed test leaves nothing behind.
  const stop = async () => {
    process.kill(-child.pid!, 'SIGINT');
    try {
      await waitUntil(
        async () => groupAlive(child.pid!),
        (alive) => !alive,
        'every process of npm start to exit after Ctrl-C',
        30_000,
      );
    } catch (error) {
      process.kill(-child.pid!, 'SIGKILL');
      throw error;
    }
  };
  const ready = (out: string) => out.includes('Press Ctrl-C to stop.');
  try {
    await waitUntil(
      async () => text,
      (out) => ready(out) || child.exitCode !== null,
      'npm start to be ready',
      60_000,
    );
    if (!ready(text)) throw new Error(`npm start exited with ${child.exitCode} before it was ready:\n${text}`);
  } catch (error) {
    if (groupAlive(child.pid!)) await stop().catch(() => undefined);
    throw error;
  }
  return { output: () => text, stop };
}

describe('beside a running npm start (its default ports taken)', function () {
  /** Plain servers on the default ports that were free: they stand for the running npm start. */
  let standIns: Server[];

  before(async () => {
    // A port already taken is held by what took it, perhaps the developer's own npm start.
    standIns = (await Promise.all(NPM_START_PORTS.map(hold))).filter((server) => server !== undefined);
  });
  after(async () => {
    await Promise.all(standIns.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  describe('npm start', function () {
    this.timeout(120_000);
    let databaseUrl: string;
    let crashDatabaseUrl: string;

    before(async () => {
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
      const ports = await ownPorts();
      const port = ports.PORT;
      const metrics = Number(ports.WORKER_METRICS_PORT);
      // A data folder of its own: the settings key npm start makes goes there, not into the checkout's .data.
      const dataDir = mkdtempSync(join(tmpdir(), 'agentry-start-'));
      const env = {
        ...ports,
        DATABASE_URL: databaseUrl,
        TEMPORAL_ADDRESS: harness().env.address,
        TEMPORAL_TASK_QUEUE: `start-${port}`,
        AGENTRY_DATA_DIR: dataDir,
        SETTINGS_ENCRYPTION_KEY: '',
      };
      const base = `http://127.0.0.1:${port}/public/v1`;
      const keyFile = join(dataDir, 'settings.key');
      let userKey: string | undefined;
      const first = await npmStart(env);
      try {
        const out = first.output();
        expect(out).to.include(`API base URL   http://127.0.0.1:${port}/public/v1`);
        expect(out).to.include('Temporal UI    http://127.0.0.1:8233');
        expect(out).to.include(`using the Temporal cluster at ${harness().env.address}`);
        expect(out).to.include('created the database');
        // On a laptop, automations may call the services beside them; npm start says so.
        expect(out).to.include("npm start allows calls to users' URLs to reach private addresses");
        expect(out).to.include('Outbound calls private addresses allowed (OUTBOUND_ALLOW_PRIVATE=true); link-local and metadata refused');
        userKey = /USER key +(\S+)/.exec(out)?.[1];
        const generalKey = /GENERAL key +(\S+)/.exec(out)?.[1];
        const me = await call('GET', '/me', { key: userKey, baseUrl: base });
        expect(me.status).to.equal(200);
        expect(me.body.data.account.name).to.equal('Default');
        expect((await call('GET', '/me', { key: generalKey, baseUrl: base })).body.data.user).to.equal(null);
        // The first user's password, printed once beside the keys, signs in to the console.
        expect(out).to.include(`Console        http://127.0.0.1:${port}/console`);
        const password = /Password +(\S+) +\(sign in to http:\/\/127\.0\.0\.1:\d+\/console as admin@localhost\)/.exec(out)?.[1];
        const signedIn = await call('POST', '/sessions', { baseUrl: base, body: { email: 'admin@localhost', password } });
        expect(signedIn.status, signedIn.text).to.equal(201);
        expect(signedIn.body.user).to.include({ email: 'admin@localhost', name: 'admin' });
        expect((await call('GET', '/healthz?worker=true', { baseUrl: `http://127.0.0.1:${port}` })).status).to.equal(200);
        // The workers serve their metrics on the ports given, not on the defaults the other platform holds.
        expect(out).to.include(`http://127.0.0.1:${metrics}/metrics (runs worker), http://127.0.0.1:${metrics + 2}/metrics (turns worker)`);
        for (const metricsPort of [metrics, metrics + 1, metrics + 2]) {
          expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status, `metrics on ${metricsPort}`).to.equal(200);
        }
        // Sealed secrets work from the first start: npm start made the settings key and gave it to the API.
        expect(out).to.include('npm start created the settings key');
        expect(out).to.match(/Settings key {3}\S*settings\.key \(seals stored secrets: back it up/);
        expect(statSync(keyFile).mode & 0o777).to.equal(0o600);
        const agent = await call('POST', '/agents', { key: userKey, baseUrl: base, body: { name: 'Greeter' } });
        const rotated = await call('POST', `/agents/${agent.body.id}/identity-secret/rotate`, { key: userKey, baseUrl: base });
        expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
        expect(first.output()).to.not.match(/EADDRINUSE|exited unexpectedly/);
      } finally {
        await first.stop();
      }
      const key = readFileSync(keyFile, 'utf8');
      expect(first.output()).to.include('stopping...');

      const second = await npmStart(env);
      try {
        expect(second.output()).to.include('database schema is up to date');
        expect(second.output()).to.not.include('USER key');
        expect(second.output()).to.not.include('Password ');
        expect(second.output()).to.not.include('created the settings key');
        expect(readFileSync(keyFile, 'utf8'), 'the same key').to.equal(key);
        expect((await call('GET', '/me', { key: userKey, baseUrl: base })).status).to.equal(200);
      } finally {
        await second.stop();
      }
    });

    it('restarts a worker killed by the kernel while the API keeps accepting webhooks, and the webhook then runs', async () => {
      const ports = await ownPorts();
      const port = ports.PORT;
      const env = { ...ports, DATABASE_URL: crashDatabaseUrl, TEMPORAL_ADDRESS: harness().env.address, TEMPORAL_TASK_QUEUE: `start-${port}-crash` };
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

  it('npm test: a suite file passes on a harness of its own (database, Temporal dev server, API and worker)', async function () {
    this.timeout(300_000);
    const mocha = spawn(join(projectRoot, 'node_modules', '.bin', 'mocha'), [], {
      cwd: projectRoot,
      env: { ...process.env, SPEC: 'test/api/health.test.ts' },
    });
    let output = '';
    mocha.stdout.on('data', (c: Buffer) => (output += c.toString()));
    mocha.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const [code] = await once(mocha, 'exit');
    expect(code, output).to.equal(0);
    expect(output).to.match(/^tests: [1-9]\d* passed, 0 failed, 0 skipped$/m);
  });
});
