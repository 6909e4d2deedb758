/** Small helpers over fetch for API tests: real HTTP against the harness's API. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { bootstrapAccount, type BootstrapResult } from '../../db/services/accounts.service.js';
import { harness } from './harness.js';

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Raw body sent as is (for malformed-JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Defaults to the harness's /public/v1 base URL. */
  baseUrl?: string;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${options.baseUrl ?? harness().baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

let accountCounter = 0;

/** A fresh account with one user, a USER key and a GENERAL key. */
export async function newAccount(name = `Account ${++accountCounter}`): Promise<BootstrapResult> {
  const em: EntityManager = harness().orm.em.fork();
  return bootstrapAccount(em, name, `owner${accountCounter}-${Date.now()}@example.test`);
}
