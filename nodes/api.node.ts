/**
 * API: one real HTTP call (SPEC.md, API node). Network errors and 5xx answers are retried with backoff; a 4xx
 * answer is the caller's mistake and fails the node at once. The output is the response body, parsed when JSON;
 * `variables` capture paths of it. A cancelled run aborts the call in flight.
 */
import { toVariableString } from '../lib/runtime/path.js';
import { checkApiVariables } from './checks/capture-variables.check.js';
import { invalid, isValidUrl, type NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, type JsonSchema, type NodeExecutor, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

const pair = (what: string): JsonSchema => ({
  type: ['array', 'null'],
  maxItems: 100,
  items: {
    type: 'object',
    properties: {
      key: { type: 'string', minLength: 1 },
      name: { type: 'string', minLength: 1 },
      value: { description: 'Interpolable; sent as text' },
    },
  },
  description: `${what} as { key, value } items`,
});

interface Pair {
  key?: string;
  name?: string;
  value?: unknown;
}

function pairs(list: unknown): [string, string][] {
  return Array.isArray(list)
    ? (list as Pair[]).filter((p) => p.key ?? p.name).map((p) => [String(p.key ?? p.name), toVariableString(p.value) ?? ''])
    : [];
}

const checkUrl: NodeCheck = (node) => (isValidUrl(node.data.url) ? [] : [invalid('url', 'must be a valid http(s) URL ({variables} allowed)')]);

const executeApi: NodeExecutor = async ({ data }, { httpTimeoutMs, signal, outbound }) => {
  const method = String(data.method ?? 'GET').toUpperCase();
  let url: URL;
  try {
    url = new URL(toVariableString(data.url) ?? '');
  } catch {
    throw new NodeError(`The url "${String(data.url)}" is not a valid URL once its variables are filled`, 'InvalidUrl');
  }
  for (const [key, value] of pairs(data.parameters)) url.searchParams.append(key, value);
  const headers = new Headers(pairs(data.headers));
  let body: string | undefined;
  if (data.body !== undefined && data.body !== null && data.body !== '' && method !== 'GET' && method !== 'HEAD') {
    body = typeof data.body === 'string' ? data.body : JSON.stringify(data.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const response = await outbound(url, { method, headers, body, signal: AbortSignal.any([signal, AbortSignal.timeout(httpTimeoutMs)]) });
  const text = await response.text();
  const where = `${method} ${url.origin}${url.pathname}`;
  if (response.status >= 500) throw new Error(`${where} answered ${response.status}`);
  if (response.status >= 400) throw new NodeError(`${where} answered ${response.status}: ${text.slice(0, 300)}`, 'HttpClientError');
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

export const apiNode: NodeModule = {
  type: 'API',
  scopes: ['automation', 'flow'],
  summary: 'Calls an external HTTP endpoint; the output is the response body (parsed when JSON)',
  data: {
    required: ['url'],
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192, description: 'http(s) URL; interpolable' },
      method: { enum: [...HTTP_METHODS], description: 'GET when omitted' },
      headers: pair('Request headers'),
      parameters: pair('Query parameters'),
      body: { description: 'Request body: text, or JSON sent as application/json; interpolable' },
      variables: {
        type: ['array', 'null'],
        maxItems: 100,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['key'],
          properties: { key: { type: 'string' }, value: { type: 'string' }, fullResponse: { type: 'boolean' } },
        },
        description: 'Captures: { key: workflow variable, value: path into the JSON response, fullResponse }',
      },
      connectedAccountId: { type: ['integer', 'null'], description: 'A connected account of the account (GET /integrations)' },
      captureVariables: { description: 'Not used by API nodes: kept as sent, unchecked (SPEC.md: the wrong capture field is ignored)' },
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['url', 'headers[].value', 'parameters[].value', 'body'],
  captures: 'apiVariables',
  checks: [checkUrl, checkApiVariables],
  execute: executeApi,
};
