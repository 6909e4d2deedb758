/**
 * Signing in, against an API process of its own (test/bench/api-process.ts, no sign-in limits): (1) how long
 * `POST /sessions` takes for the right password, a wrong one and an unknown email, in interleaved rounds (p50 and p90
 * of each: an unknown email is checked against a dummy hash, so it should take as long as a wrong password); (2) what
 * the session cookie costs a request against an API key, `GET /me` one at a time alternating the two (p50 of each).
 *
 *   node --import tsx test/bench/sign-in.bench.ts        # ROUNDS=40 sign-ins of each kind, REQUESTS=400 of each
 */
import { cpus, loadavg } from 'node:os';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM, migrate } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { setUserPassword } from '../../db/accounts/passwords.service.js';
import { percentile, startProcess, stopProcesses } from './bench-processes.js';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const REQUESTS = Number(process.env.REQUESTS ?? 400);
const PASSWORD = 'bench password 1';

const databaseUrl = `postgres://postgres@127.0.0.1:5432/agentry_bench_sign_in_${process.pid}`;
await ensureDatabase(databaseUrl);
const orm = await initORM({ databaseUrl, poolMax: 2 });
await migrate(orm);
const { user, userKey } = await bootstrapAccount(orm.em.fork(), 'Sign-in', 'sign-in@example.test');
await setUserPassword(orm.em.fork(), user.id, PASSWORD);
await orm.close();

const timed = async (call: () => Promise<Response>, expected: number): Promise<[number, Response]> => {
  const started = performance.now();
  const res = await call();
  const ms = performance.now() - started;
  if (res.status !== expected) throw new Error(`answered ${res.status}, expected ${expected}: ${await res.text()}`);
  return [ms, res];
};
const line = (name: string, ms: number[]) => `${name.padEnd(15)} p50 ${percentile(ms, 50).toFixed(1)} ms, p90 ${percentile(ms, 90).toFixed(1)} ms`;

console.log(`conditions: Node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}, PostgreSQL on 127.0.0.1`);
try {
  const port = Number((await startProcess('test/bench/api-process.ts', { DATABASE_URL: databaseUrl }, /port (\d+)/))[1]);
  const base = `http://127.0.0.1:${port}/public/v1`;
  const signIn = (email: string, password: string) => () =>
    fetch(`${base}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const kinds: [string, () => Promise<Response>, number][] = [
    ['right password', signIn(user.email, PASSWORD), 201],
    ['wrong password', signIn(user.email, 'not the password'), 401],
    ['unknown email', signIn('nobody@example.test', 'not the password'), 401],
  ];
  for (const [, call, status] of kinds) await timed(call, status); // warm-up
  const times = new Map(kinds.map(([name]) => [name, [] as number[]]));
  let cookie = '';
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call, status] of kinds) {
      const [ms, res] = await timed(call, status);
      times.get(name)!.push(ms);
      if (status === 201) cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    }
  }
  console.log(`POST /sessions, ${ROUNDS} of each, interleaved:`);
  for (const [name, ms] of times) console.log(`  ${line(name, ms)}`);

  const byKey: number[] = [];
  const byCookie: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    byKey.push((await timed(() => fetch(`${base}/me`, { headers: { authorization: `Bearer ${userKey}` } }), 200))[0]);
    byCookie.push((await timed(() => fetch(`${base}/me`, { headers: { cookie } }), 200))[0]);
  }
  console.log(`GET /me, ${REQUESTS} of each, alternating:`);
  console.log(`  ${line('USER key', byKey)}`);
  console.log(`  ${line('session cookie', byCookie)}`);
} finally {
  stopProcesses();
  await dropDatabase(databaseUrl);
}
