/** Small helpers over fetch for API tests: real HTTP against the harness's API. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { paths } from '../../client/agentry-api.js';
import { bootstrapAccount, type BootstrapResult } from '../../db/accounts/accounts.service.js';
import { contractViolations } from './contract.js';
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
  const violations = contractViolations(method, response.url, response.status, response.headers.get('content-type'), parsed, text);
  if (violations.length) throw new Error(`The answer breaks the OpenAPI document:\n  ${violations.join('\n  ')}`);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonContent<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : undefined;
/** The JSON body of an operation's success answers (200, 201, 202), from the generated client types. */
export type SuccessBody<Operation> = Operation extends { responses: infer Responses }
  ? { [Status in keyof Responses]: Status extends 200 | 201 | 202 ? JsonContent<Responses[Status]> : never }[keyof Responses]
  : never;
type RequestBody<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
type PathParams<Operation> = Operation extends { parameters: { path: infer Params } } ? Params : never;

/**
 * `call` typed by the generated client (`client/agentry-api.ts`): the path is a documented template, `params` fill
 * it, the body is the documented request body and the answer's body the documented success body, so a breaking
 * change of the API is a compile error in the tests that use it.
 */
export async function typedCall<Path extends keyof paths, M extends Method & keyof paths[Path]>(
  method: M,
  path: Path,
  options: Omit<CallOptions, 'body'> & { params?: PathParams<paths[Path][M]>; body?: RequestBody<paths[Path][M]> } = {},
): Promise<CallResult<SuccessBody<paths[Path][M]>>> {
  const params = (options.params ?? {}) as Record<string, string | number>;
  const url = String(path).replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(String(params[name])));
  return call(method.toUpperCase(), url, options);
}

let accountCounter = 0;

/** A fresh account with one user, a USER key and a GENERAL key. */
export async function newAccount(name = `Account ${++accountCounter}`): Promise<BootstrapResult> {
  const em: EntityManager = harness().orm.em.fork();
  return bootstrapAccount(em, name, `owner${accountCounter}-${Date.now()}@example.test`);
}
