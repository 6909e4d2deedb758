/** Objects and Tables through the API: calls that must succeed or fail with an issue, tables, fields, rows, physical columns. */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { call, newAccount, type CallResult } from '../../setup/http.js';

export interface Issue {
  code: string;
  path: string;
  message: string;
}

/** Asserts an error envelope `{ code, message, details? }` with the given status and code; returns its issues. */
export function expectError(res: CallResult, status: number, code: string): Issue[] {
  expect(res.status, res.text).to.equal(status);
  expect(res.body, res.text).to.include.keys('code', 'message');
  expect(res.body.code, res.text).to.equal(code);
  expect(res.body.message, res.text).to.be.a('string').and.not.equal('');
  return (res.body.details?.issues ?? []) as Issue[];
}

/** Asserts a 400 `bad_request` with an issue at `path` (and `issueCode` when given); returns that issue. */
export function expectIssue(res: CallResult, path: string | RegExp, issueCode?: string): Issue {
  const issues = expectError(res, 400, 'bad_request');
  const issue = issues.find((i) => (typeof path === 'string' ? i.path === path : path.test(i.path)));
  expect(issue, `no issue at ${String(path)} in ${res.text}`).to.not.equal(undefined);
  if (issueCode) expect(issue!.code, res.text).to.equal(issueCode);
  expect(issue!.message, res.text).to.be.a('string').and.not.equal('');
  return issue!;
}

/** Asserts a success status and returns the body. */
export function ok<T = any>(res: CallResult<T>, status = 200): T {
  expect(res.status, res.text).to.equal(status);
  return res.body;
}

/** A fresh account: its USER key (`key`), GENERAL key (`general`) and the raw bootstrap result. */
export async function account() {
  const a = await newAccount();
  return { key: a.userKey, general: a.generalKey, account: a };
}

/** A client bound to one key: `api.get('/tables')`, `api.post('/tables', body)`, … */
export function client(key: string) {
  return {
    get: (path: string) => call('GET', path, { key }),
    post: (path: string, body: unknown = {}) => call('POST', path, { key, body }),
    patch: (path: string, body: unknown) => call('PATCH', path, { key, body }),
    del: (path: string) => call('DELETE', path, { key }),
  };
}

export type Client = ReturnType<typeof client>;

/** Fields of an Object or Table (`base` is `/objects/x` or `/tables/x`). */
export async function fieldsOf(api: Client, base: string): Promise<any[]> {
  return ok(await api.get(`${base}/fields?limit=500`)).agentry;
}

export async function fieldNamed(api: Client, base: string, name: string): Promise<any> {
  const field = (await fieldsOf(api, base)).find((f) => f.name === name);
  expect(field, `no field "${name}" in ${base}`).to.not.equal(undefined);
  return field;
}

/** Rows of an Object or Table in creation order. */
export async function rowsOf(api: Client, base: string): Promise<any[]> {
  return ok(await api.post(`${base}/rows/list`, { limit: 500 })).agentry;
}

/** Creates a Table and returns its detail. */
export async function createTable(api: Client, name: string, columns?: unknown[]): Promise<any> {
  return ok(await api.post('/tables', columns ? { name, columns } : { name }), 201);
}

/** Adds a field and returns it. */
export async function addField(api: Client, base: string, body: Record<string, unknown>): Promise<any> {
  return ok(await api.post(`${base}/fields`, body), 201);
}

/** Physical columns of a table's row table `data.rows_<id>` (to check that nothing is left behind). */
export async function physicalColumns(tableId: number): Promise<string[]> {
  const result = await harness()
    .orm.em.getKnex()
    .raw("select column_name from information_schema.columns where table_schema = 'data' and table_name = ? order by column_name", [
      `rows_${tableId}`,
    ]);
  return (result.rows as { column_name: string }[]).map((r) => r.column_name);
}
