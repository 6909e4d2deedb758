import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { dropDatabase } from '../../db/database.js';
import { harness, projectRoot } from '../setup/harness.js';
import { call } from '../setup/http.js';

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
  const deadline = Date.now() + 60_000;
  while (!text.includes('Press Ctrl-C to stop.')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not become ready:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    output: () => text,
    // Ctrl-C in a terminal signals the whole foreground process group.
    stop: async () => {
      process.kill(-child.pid!, 'SIGINT');
      const until = Date.now() + 20_000;
      while (
        await fetch(`http://127.0.0.1:${env.PORT}/healthz`).then(
          () => true,
          () => false,
        )
      ) {
        if (Date.now() > until) throw new Error('the API still answers 20 s after Ctrl-C');
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

describe('npm start', function () {
  this.timeout(120_000);
  const port = String(20000 + Math.floor(Math.random() * 20000));
  let databaseUrl: string;

  before(() => {
    const url = new URL(harness().databaseUrl);
    url.pathname = `${url.pathname}_start_${randomBytes(2).toString('hex')}`;
    databaseUrl = url.toString();
  });
  after(() => dropDatabase(databaseUrl));

  it('creates and migrates the database, prints the URLs and, on the first start only, working keys; Ctrl-C stops it', async () => {
    const env = { PORT: port, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: harness().env.address, TEMPORAL_TASK_QUEUE: `start-${port}` };
    const first = await npmStart(env);
    const out = first.output();
    expect(out).to.include(`API base URL   http://127.0.0.1:${port}/public/v1`);
    expect(out).to.include('Temporal UI    http://127.0.0.1:8233');
    expect(out).to.include(`using the Temporal cluster at ${harness().env.address}`);
    expect(out).to.include('created the database');
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
});
