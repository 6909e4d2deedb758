/** Calls to the agents API that must succeed or be refused (with the issue at a path), and an agent of a fresh account. */
import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';

export type Account = Awaited<ReturnType<typeof newAccount>>;

/** A call that must answer `status`; returns the body. */
export async function ok<T = any>(method: string, path: string, key: string, body?: unknown, status = method === 'POST' ? 201 : 200): Promise<T> {
  const res = await call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).to.equal(status);
  return res.body as T;
}

/** A call that must be refused with `status`; returns the error body. */
export async function refused(method: string, path: string, key: string, status: number, body?: unknown): Promise<any> {
  const res = await call(method, path, { key, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).to.equal(status);
  expect(res.body.code).to.be.a('string');
  return res.body;
}

/** The issue of a 400 at `path`. */
export function issueAt(error: any, path: string): { code: string; path: string; message: string } {
  const issue = error.details?.issues?.find((i: { path: string }) => i.path === path);
  expect(issue, `no issue at ${path}: ${JSON.stringify(error)}`).to.not.equal(undefined);
  return issue;
}

export async function newAgent(a: Account, name = 'Support'): Promise<{ id: string; defaultFlowId: number }> {
  return ok('POST', '/agents', a.userKey, { name });
}
