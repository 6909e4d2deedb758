import { ApplicationFailure } from '@temporalio/activity';
import type { NodeExecutor } from './types.js';

interface Pair {
  key?: string;
  name?: string;
  value?: unknown;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

function pairs(list: unknown): [string, string][] {
  return Array.isArray(list)
    ? (list as Pair[]).filter((p) => (p.key ?? p.name)).map((p) => [String(p.key ?? p.name), p.value == null ? '' : String(p.value)])
    : [];
}

/**
 * API: one real HTTP call. Network errors and 5xx answers throw plain errors, which Temporal retries with backoff;
 * 4xx answers are the caller's mistake and fail the node at once (non-retryable). The output is the response body,
 * parsed when it is JSON.
 */
export const executeApi: NodeExecutor = async ({ data }, { httpTimeoutMs }) => {
  const method = String(data.method ?? 'GET').toUpperCase();
  if (!METHODS.includes(method)) throw ApplicationFailure.nonRetryable(`Unsupported HTTP method ${method}`, 'InvalidNode');
  const url = new URL(String(data.url));
  for (const [key, value] of pairs(data.parameters)) url.searchParams.append(key, value);
  const headers = new Headers(pairs(data.headers));
  let body: string | undefined;
  if (data.body !== undefined && data.body !== null && data.body !== '' && method !== 'GET' && method !== 'HEAD') {
    body = typeof data.body === 'string' ? data.body : JSON.stringify(data.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(httpTimeoutMs) });
  const text = await response.text();
  if (response.status >= 500) throw new Error(`${method} ${url.origin}${url.pathname} answered ${response.status}`);
  if (response.status >= 400) {
    throw ApplicationFailure.nonRetryable(`${method} ${url.origin}${url.pathname} answered ${response.status}: ${text.slice(0, 300)}`, 'HttpClientError');
  }
  let output: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) {
    try {
      output = JSON.parse(text);
    } catch {
      output = text;
    }
  }
  return { output };
};
