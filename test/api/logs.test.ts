import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../lib/logger.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { quiet } from '../setup/quiet.js';

/** A JSON logger whose lines the test reads back. */
function capturingLogger() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    lines.push(
      ...chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
  });
  return { logger: createLogger('api', { format: 'json', level: 'info', destination: stream }), lines, text: () => text };
}

describe('structured logs', function () {
  this.timeout(30_000);

  it('logs one JSON line per request with its id, route, status, latency and account, and never a key', async () => {
    const a = await newAccount();
    const capture = capturingLogger();
    const app = await listen({
      logger: capture.logger,
      config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024, taskQueue: harness().taskQueue },
    });
    try {
      const res = await call('GET', '/me', { key: a.userKey, baseUrl: `${app.origin}/public/v1`, headers: { 'x-request-id': 'trace-42' } });
      expect(res.headers.get('x-request-id')).to.equal('trace-42');
      const generated = await call('GET', '/workflows/999999', {
        key: a.userKey,
        baseUrl: `${app.origin}/public/v1`,
        headers: { 'x-request-id': 'not a valid id!' },
      });
      expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      // The lines are written asynchronously: wait for both, then for no more (one line per request).
      const ids = ['trace-42', generated.headers.get('x-request-id')];
      const logged = () => capture.lines.filter((l) => ids.includes(l.requestId as string)).length;
      expect(await quiet(logged, { settleMs: 300, busy: [() => logged() < 2], what: 'the request log' })).to.equal(2);
      const me = capture.lines.find((l) => l.requestId === 'trace-42')!;
      expect(me).to.include({ name: 'api', msg: 'request', method: 'GET', route: '/public/v1/me', status: 200, accountId: a.account.id });
      expect(me.ms).to.be.a('number');
      expect(capture.lines.find((l) => l.requestId === generated.headers.get('x-request-id'))).to.include({
        route: '/public/v1/workflows/:workflowId',
        status: 404,
      });
      expect(capture.text()).to.not.include(a.userKey);
    } finally {
      app.server.close();
    }
  });

  it('redacts keys, tokens and Authorization headers wherever they are logged', () => {
    const capture = capturingLogger();
    capture.logger.info(
      { headers: { authorization: 'Bearer agy_usr_secret' }, webhook: { accessToken: 'tok_secret' }, key: 'agy_gen_secret', userKey: 'agy_usr_2' },
      'something happened',
    );
    const text = capture.text();
    for (const secret of ['agy_usr_secret', 'tok_secret', 'agy_gen_secret', 'agy_usr_2']) expect(text).to.not.include(secret);
    expect(text).to.include('[redacted]');
  });
});
