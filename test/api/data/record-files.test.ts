import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LocalFileStore } from '../../../integrations/files/local-file-store.js';
import { harness, listen } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { waitUntil } from '../../setup/runs.js';
import { addField, expectError, expectIssue, ok } from './tables.helpers.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

/** Every file (not folder) under `dir`, recursively. */
async function storedFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

async function fileRows(rowId: string): Promise<number> {
  const result = await harness().orm.em.getKnex().raw('select count(*)::int as n from record_files where row_id = ?', [rowId]);
  return result.rows[0].n as number;
}

describe('files of Object records', () => {
  let dir: string;
  let server: Server;
  let baseUrl: string;
  let a: Account;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentry-files-'));
    const started = await listen({ files: new LocalFileStore(dir) });
    server = started.server;
    baseUrl = `${started.origin}/public/v1`;
    a = await newAccount();
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const api = (method: string, path: string, key = a.userKey, body?: unknown) => call(method, path, { key, body, baseUrl });
  const person = async () => ok(await api('POST', '/objects/people/rows', a.userKey, { 'First name': 'Ada' }), 201).id as string;

  async function upload(rowId: string, files: { name: string; type?: string; bytes: Uint8Array }[], options: { key?: string; query?: string } = {}) {
    const form = new FormData();
    for (const f of files) form.append('files', new Blob([f.bytes], { type: f.type ?? '' }), f.name);
    const response = await fetch(`${baseUrl}/objects/people/rows/${rowId}/files${options.query ?? ''}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.key ?? a.userKey}` },
      body: form,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
  }

  async function download(id: number, headers: Record<string, string> = {}) {
    const response = await fetch(`${baseUrl}/objects/people/files/${id}/download`, {
      headers: { authorization: `Bearer ${a.generalKey}`, ...headers },
    });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  it('uploads several files at once and downloads them byte for byte, whole or by range, under any Unicode name', async () => {
    const rowId = await person();
    const big = randomBytes(300_000);
    const small = randomBytes(1000);
    const twin = randomBytes(10);
    const name = 'Résumé “final” 日本語 ✓.pdf';
    const res = await upload(rowId, [
      { name, type: 'application/pdf', bytes: big },
      { name: 'a.bin', bytes: small },
      { name: 'a.bin', bytes: twin },
    ]);
    const files = ok(res, 201).agentry;
    expect(files.map((f: any) => [f.name, f.size, f.contentType])).to.deep.equal([
      [name, big.length, 'application/pdf'],
      ['a.bin', 1000, 'application/octet-stream'],
      ['a.bin', 10, 'application/octet-stream'],
    ]);
    expect(files[0]).to.include({ object: 'people', rowId, fieldId: null });
    expect(files[0].uploadedBy).to.deep.equal({ id: a.user.id, email: a.user.email });

    const whole = await download(files[0].id);
    expect(whole.status).to.equal(200);
    expect(whole.bytes.equals(big)).to.equal(true);
    expect(whole.headers.get('content-type')).to.equal('application/pdf');
    expect(whole.headers.get('content-length')).to.equal(String(big.length));
    expect(whole.headers.get('accept-ranges')).to.equal('bytes');
    const disposition = whole.headers.get('content-disposition')!;
    const encoded = /filename\*=UTF-8''([^;]+)/.exec(disposition)![1]!;
    expect(decodeURIComponent(encoded)).to.equal(name);
    expect(/filename="([^"]*)"/.exec(disposition)![1]).to.match(/^[\x20-\x7e]+$/);
    expect((await download(files[1].id)).bytes.equals(small)).to.equal(true);
    expect((await download(files[2].id)).bytes.equals(twin)).to.equal(true);

    const part = await download(files[0].id, { range: 'bytes=1000-1999' });
    expect(part.status).to.equal(206);
    expect(part.bytes.equals(big.subarray(1000, 2000))).to.equal(true);
    expect(part.headers.get('content-range')).to.equal(`bytes 1000-1999/${big.length}`);
    expect(part.headers.get('content-length')).to.equal('1000');
    const tail = await download(files[0].id, { range: 'bytes=-100' });
    expect(tail.status).to.equal(206);
    expect(tail.bytes.equals(big.subarray(big.length - 100))).to.equal(true);
    const beyond = await download(files[0].id, { range: `bytes=${big.length}-` });
    expect(beyond.status).to.equal(416);
    expect(beyond.headers.get('content-range')).to.equal(`bytes */${big.length}`);

    const listed = ok(await api('GET', `/objects/people/rows/${rowId}/files?limit=2`, a.generalKey));
    expect(listed.agentry).to.deep.equal(files.slice(0, 2));
    const rest = ok(await api('GET', `/objects/people/rows/${rowId}/files?limit=2&cursor=${listed.nextCursor}`, a.generalKey));
    expect(rest.agentry).to.deep.equal(files.slice(2));
    expect(ok(await api('GET', `/objects/people/files/${files[1].id}`, a.generalKey))).to.deep.equal(files[1]);
    expect(await storedFiles(dir)).to.have.length.at.least(3);
  });

  it("enforces a file field's allowedFileTypes (400) and maxFileSize (413), storing nothing, and lists accepted files in the field", async () => {
    const field = await addField(harnessClient(), '/objects/people', {
      name: `Docs ${Date.now()}`,
      type: 'file',
      metadata: { allowedFileTypes: ['pdf', 'image/*'], maxFileSize: 50_000 },
    });
    const rowId = await person();
    const before = (await storedFiles(dir)).length;
    const query = `?field=${field.id}`;
    const wrongType = await upload(
      rowId,
      [
        { name: 'ok.pdf', bytes: randomBytes(10) },
        { name: 'notes.txt', type: 'text/plain', bytes: randomBytes(10) },
      ],
      { query },
    );
    expectIssue({ ...wrongType, body: wrongType.body } as any, 'files[1]');
    const tooBig = await upload(
      rowId,
      [
        { name: 'scan.png', type: 'image/png', bytes: randomBytes(10) },
        { name: 'huge.pdf', bytes: randomBytes(200_000) },
      ],
      { query },
    );
    expectError(tooBig as any, 413, 'payload_too_large');
    expect(tooBig.body.message).to.match(/huge\.pdf/);
    expect(await fileRows(rowId)).to.equal(0);
    expect((await storedFiles(dir)).length).to.equal(before);
    expectIssue((await upload(rowId, [{ name: 'x.pdf', bytes: randomBytes(1) }], { query: '?field=First name' })) as any, 'query.field');

    const accepted = ok(
      await upload(
        rowId,
        [
          { name: 'scan.png', type: 'image/png', bytes: randomBytes(50_000) },
          { name: 'Deal.PDF', bytes: randomBytes(5) },
        ],
        { query },
      ),
      201,
    ).agentry;
    expect(accepted.map((f: any) => f.fieldId)).to.deep.equal([field.id, field.id]);
    const row = ok(await api('GET', `/objects/people/rows/${rowId}`));
    expect(row.data[field.name]).to.deep.equal(accepted.map((f: any) => String(f.id)));
    expect((await api('DELETE', `/objects/people/files/${accepted[0].id}`)).status).to.equal(204);
    expect(ok(await api('GET', `/objects/people/rows/${rowId}`)).data[field.name]).to.deep.equal([String(accepted[1].id)]);
  });

  it('leaves no file row and no bytes when the client goes away in the middle of an upload', async () => {
    const rowId = await person();
    const before = await storedFiles(dir);
    const boundary = 'agentryboundary';
    const url = new URL(`${baseUrl}/objects/people/rows/${rowId}/files`);
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        authorization: `Bearer ${a.userKey}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(10_000_000),
      },
    });
    req.on('error', () => undefined);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="first.bin"\r\n\r\n${'x'.repeat(1000)}\r\n`);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="half.bin"\r\n\r\n`);
    req.write(randomBytes(500_000));
    // Wait until the bytes reach the store, then drop the connection.
    await waitUntil(
      () => storedFiles(dir),
      (files) => files.length > before.length + 1,
      'the first file and the start of the second in the store',
    );
    req.destroy();
    await waitUntil(
      () => storedFiles(dir),
      (files) => files.length <= before.length,
      'the aborted upload to be removed from the store',
    );
    expect(await storedFiles(dir)).to.deep.equal(before);
    expect(await fileRows(rowId)).to.equal(0);
    // The API still serves requests after the abort.
    expect(ok(await api('GET', `/objects/people/rows/${rowId}/files`)).agentry).to.deep.equal([]);
  });

  it('refuses bodies that are not a multipart upload of files, or parts under another field than "files", with 400 naming it', async () => {
    const rowId = await person();
    const before = await storedFiles(dir);
    expectIssue(await api('POST', `/objects/people/rows/${rowId}/files`, a.userKey, { files: [] }), 'body');
    const send = async (parts: [field: string, value: Blob | string, name?: string][]) => {
      const form = new FormData();
      for (const [field, value, name] of parts) {
        if (typeof value === 'string') form.append(field, value);
        else form.append(field, value, name);
      }
      const response = await fetch(`${baseUrl}/objects/people/rows/${rowId}/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.userKey}` },
        body: form,
      });
      const text = await response.text();
      return { status: response.status, text, body: JSON.parse(text), headers: response.headers };
    };
    const big = new Blob([randomBytes(200_000)]);
    const cases: [field: string, parts: [string, Blob | string, string?][]][] = [
      ['attachment', [['attachment', new Blob(['x']), 'x.txt']]],
      ['file', [['file', new Blob(['x']), 'x.txt']]],
      [
        'other',
        [
          ['files', big, 'stored-first.bin'],
          ['other', new Blob(['y']), 'y.bin'],
        ],
      ],
      [
        'other',
        [
          ['files', big, 'stored-first.bin'],
          ['other', 'a text field'],
        ],
      ],
      ['note', [['note', 'no files here']]],
      ['files', [['files', 'text where a file belongs']]],
    ];
    for (const [field, parts] of cases) {
      const res = await send(parts);
      const what = parts.map(([f, v]) => `${f}:${typeof v === 'string' ? 'text' : 'file'}`).join(', ');
      expect(res.status, `${what}: ${res.text}`).to.equal(400);
      expect(expectIssue(res, field).path, what).to.equal(field);
      expect(res.body.message, what).to.include(`"${field}"`);
    }
    expectIssue(await send([]), 'files');
    expect(await fileRows(rowId)).to.equal(0);
    expect(await storedFiles(dir), 'no bytes left').to.deep.equal(before);
    expect(ok(await send([['files', new Blob(['z']), 'z.txt']]), 201).agentry.map((f: any) => f.name)).to.deep.equal(['z.txt']);
  });

  it('needs a USER key to write, hides other accounts, and removes the bytes with the file or its record', async () => {
    const rowId = await person();
    const before = (await storedFiles(dir)).length;
    const [kept, other] = ok(
      await upload(rowId, [
        { name: 'kept.txt', bytes: randomBytes(100) },
        { name: 'other.txt', bytes: randomBytes(100) },
      ]),
      201,
    ).agentry;
    expect((await storedFiles(dir)).length).to.equal(before + 2);
    expectError((await upload(rowId, [{ name: 'x', bytes: randomBytes(1) }], { key: a.generalKey })) as any, 403, 'forbidden');
    expectError(await api('DELETE', `/objects/people/files/${kept.id}`, a.generalKey), 403, 'forbidden');

    const stranger = await newAccount();
    for (const path of [`/objects/people/files/${kept.id}`, `/objects/people/files/${kept.id}/download`, `/objects/people/rows/${rowId}/files`]) {
      expectError(await api('GET', path, stranger.generalKey), 404, 'not_found');
    }
    expectError(await api('DELETE', `/objects/people/files/${kept.id}`, stranger.userKey), 404, 'not_found');
    expectError((await upload(rowId, [{ name: 'x', bytes: randomBytes(1) }], { key: stranger.userKey })) as any, 404, 'not_found');

    expect((await api('DELETE', `/objects/people/files/${other.id}`)).status).to.equal(204);
    expectError(await api('GET', `/objects/people/files/${other.id}`), 404, 'not_found');
    expect((await storedFiles(dir)).length).to.equal(before + 1);
    expect((await api('DELETE', `/objects/people/rows/${rowId}`)).status).to.equal(204);
    expect((await storedFiles(dir)).length).to.equal(before);
    expect(await fileRows(rowId)).to.equal(0);
  });

  /** The metadata client of the shared helpers, on this suite's API. */
  function harnessClient() {
    return {
      get: (path: string) => api('GET', path),
      post: (path: string, body: unknown = {}) => api('POST', path, a.userKey, body),
      patch: (path: string, body: unknown) => api('PATCH', path, a.userKey, body),
      del: (path: string) => api('DELETE', path),
    };
  }
});
