import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import { LocalFileStore } from '../../../integrations/files/local-file-store.js';
import { sweepOrphanFiles } from '../../../db/tables/files/orphan-sweep.js';
import { harness, listen } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { waitUntil } from '../../setup/runs.js';
import { ok } from './tables.helpers.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

const HOUR = 3600_000;

/** Every file (not folder) under `dir`, as paths relative to it. */
async function storedFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('no stored bytes without a file row', () => {
  let dir: string;
  let server: Server;
  let baseUrl: string;
  let store: LocalFileStore;
  let a: Account;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentry-orphans-'));
    store = new LocalFileStore(dir);
    const started = await listen({ files: store });
    server = started.server;
    baseUrl = `${started.origin}/public/v1`;
    a = await newAccount();
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const api = (method: string, path: string, body?: unknown) => call(method, path, { key: a.userKey, body, baseUrl });

  async function upload(object: string, rowId: string, names: string[]): Promise<any[]> {
    const form = new FormData();
    for (const name of names) form.append('files', new Blob([randomBytes(2000)]), name);
    const response = await fetch(`${baseUrl}/objects/${object}/rows/${rowId}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.userKey}` },
      body: form,
    });
    expect(response.status, await response.clone().text()).to.equal(201);
    return ((await response.json()) as { agentry: any[] }).agentry;
  }

  const keysOf = async (ids: number[]): Promise<string[]> =>
    (await harness().orm.em.getKnex().raw('select storage_key from record_files where id = any(?) order by storage_key', [ids])).rows.map(
      (r: { storage_key: string }) => r.storage_key,
    );

  it("removes the bytes of an Object's files when the Object is deleted, and keeps a deleted file field's files", async () => {
    const name = `orphans_${randomBytes(3).toString('hex')}`;
    ok(await api('POST', '/objects', { name, columns: [{ name: 'Title', type: 'string' }] }), 201);
    const field = ok(await api('POST', `/objects/${name}/fields`, { name: 'Attachments', type: 'file' }), 201);
    const rowId = ok(await api('POST', `/objects/${name}/rows`, { Title: 'one' }), 201).id as string;
    const before = await storedFiles(dir);
    const files = await upload(name, rowId, ['a.txt', 'b.txt']);
    const keys = await keysOf(files.map((f) => f.id));
    expect(await storedFiles(dir)).to.deep.equal([...before, ...keys].sort());

    // A file field's files stay the record's files when the field goes: they still list and download.
    expect((await api('DELETE', `/objects/${name}/fields/${field.id}`)).status).to.equal(204);
    expect(ok(await api('GET', `/objects/${name}/rows/${rowId}/files`)).agentry.map((f: any) => f.id)).to.deep.equal(files.map((f) => f.id));
    expect(
      (await fetch(`${baseUrl}/objects/${name}/files/${files[0].id}/download`, { headers: { authorization: `Bearer ${a.userKey}` } })).status,
    ).to.equal(200);

    expect((await api('DELETE', `/objects/${name}`)).status).to.equal(204);
    expect(await storedFiles(dir)).to.deep.equal(before);
    expect(await keysOf(files.map((f) => f.id))).to.deep.equal([]);
  });

  it('keeps the bytes of an upload in progress under a partial name, never under its key, and removes them when it is cut short', async () => {
    const rowId = ok(await api('POST', '/objects/people/rows', { 'First name': 'Ada' }), 201).id as string;
    const before = await storedFiles(dir);
    const boundary = 'orphanboundary';
    const url = new URL(`${baseUrl}/objects/people/rows/${rowId}/files`);
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { authorization: `Bearer ${a.userKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': '10000000' },
    });
    req.on('error', () => undefined);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="half.bin"\r\n\r\n`);
    req.write(randomBytes(300_000));
    const stored = await waitUntil(
      () => storedFiles(dir),
      (files) => files.length > before.length,
      'the start of the upload in the store',
    );
    const during = stored.filter((f) => !before.includes(f));
    expect(during).to.have.length(1);
    expect(during[0]).to.match(/\.partial$/);
    req.destroy();
    await waitUntil(
      () => storedFiles(dir),
      (files) => files.length <= before.length,
      'the aborted upload to be removed from the store',
    );
    expect(await storedFiles(dir)).to.deep.equal(before);
  });

  it('sweeps bytes no file row names once older than the grace period, keeping fresh ones and named ones', async () => {
    const rowId = ok(await api('POST', '/objects/people/rows', { 'First name': 'Grace' }), 201).id as string;
    const [kept] = await upload('people', rowId, ['kept.txt']);
    const [keptKey] = await keysOf([kept.id]);
    // What a crash leaves: the bytes of an upload whose rows never committed, and a partial upload.
    const strays = {
      oldWhole: `${a.account.id}/999/${randomUUID()}`,
      oldPartial: `${a.account.id}/999/${randomUUID()}.partial`,
      freshWhole: `${a.account.id}/999/${randomUUID()}`,
    };
    for (const key of Object.values(strays)) {
      await mkdir(dirname(join(dir, key)), { recursive: true });
      await writeFile(join(dir, key), randomBytes(100));
    }
    const old = new Date(Date.now() - 2 * HOUR);
    for (const key of [strays.oldWhole, strays.oldPartial, keptKey!]) await utimes(join(dir, key), old, old);

    const result = await sweepOrphanFiles(harness().orm.em.fork(), store, HOUR);
    expect(result.removed.sort()).to.deep.equal([strays.oldWhole, strays.oldPartial].sort());
    const left = await storedFiles(dir);
    expect(left).to.include.members([keptKey!, strays.freshWhole]);
    expect(left).to.not.include.members([strays.oldWhole, strays.oldPartial]);
    // The named file, old as it is, still downloads whole.
    const download = await fetch(`${baseUrl}/objects/people/files/${kept.id}/download`, { headers: { authorization: `Bearer ${a.userKey}` } });
    expect(download.status).to.equal(200);
    expect((await download.arrayBuffer()).byteLength).to.equal(2000);

    // Once the fresh stray is older than the grace period too, it goes as well.
    const later = await sweepOrphanFiles(harness().orm.em.fork(), store, HOUR, Date.now() + 2 * HOUR);
    expect(later.removed).to.include(strays.freshWhole);
    expect(later.removed).to.not.include(keptKey);
  });
});
