import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { CLIENT_TYPES_FILE, clientTypes } from '../../client/generate.js';
import { harness } from '../setup/harness.js';
import { newAccount, typedCall } from '../setup/http.js';

describe('typed client', () => {
  it('types calls by the generated client: paths, path parameters, bodies and answers', async () => {
    const acct = await newAccount();
    const me = await typedCall('get', '/me', { key: acct.userKey });
    // Compile-time checks: these lines stop compiling when the documented answers change.
    const email: string | undefined = me.body.data.user?.email;
    expect(email).to.match(/@example\.test$/);
    const created = await typedCall('post', '/workflows', { key: acct.userKey, body: { name: 'Typed' } });
    expect(created.status).to.equal(201);
    const id: number = created.body.id;
    const read = await typedCall('get', '/workflows/{workflowId}', { key: acct.userKey, params: { workflowId: id } });
    expect(read.body).to.include({ id, name: 'Typed', status: 'DRAFT', liveSnapshotId: null });
  });

  it('has checked-in types that match the served document (run npm run client when this fails)', async function () {
    this.timeout(60_000);
    const doc = (await (await fetch(`${harness().baseUrl}/openapi.json`)).json()) as Record<string, unknown>;
    const fresh = await clientTypes(doc);
    expect(fresh === (await readFile(CLIENT_TYPES_FILE, 'utf8')), 'client/agentry-api.ts is out of date: npm run client').to.equal(true);
  });
});
