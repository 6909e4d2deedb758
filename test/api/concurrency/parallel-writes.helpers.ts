/** Parallel writers through the HTTP API: every write is sent at once, and each must be acknowledged. */
import { expect } from 'chai';
import { call, type CallResult } from '../../setup/http.js';

export interface Write {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Sends every write at the same time with `key`; each must answer `status` (2xx). Returns the answers in order. */
export async function allAtOnce(key: string, writes: Write[], status?: number): Promise<CallResult[]> {
  const answers = await Promise.all(writes.map((w) => call(w.method, w.path, { key, body: w.body, headers: w.headers })));
  answers.forEach((res, i) => {
    const { method, path, body } = writes[i]!;
    const expected = status ?? (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200);
    expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).to.equal(expected);
  });
  return answers;
}

/** The body of a GET that must succeed. */
export async function read<T = any>(key: string, path: string): Promise<T> {
  const res = await call('GET', path, { key });
  expect(res.status, `GET ${path}: ${res.text}`).to.equal(200);
  return res.body as T;
}

/** `[0, 1, …, n - 1]` */
export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
