/**
 * The trigger provider over HTTP (configured by TRIGGER_PROVIDER_URL and TRIGGER_PROVIDER_API_KEY).
 *
 * Protocol, relative to the base URL `{base}`; every request carries `Authorization: Bearer <key>` and
 * `Accept: application/json`, bodies are JSON:
 *
 *   POST   {base}/trigger-subscriptions
 *          { "connectedAccountId": "<connected account externalId>", "toolkit": "GMAIL",
 *            "slug": "GMAIL_NEW_GMAIL_MESSAGE", "config": { … },
 *            "callbackUrl"?: "https://agentry.example.com/trigger-deliveries/tsub_…", "secret"?: "<64 hex digits>" }
 *          → 200 or 201 { "id": "<subscription id>" }
 *   DELETE {base}/trigger-subscriptions/{id}   (id URL-encoded)
 *          → any 2xx; 404 means the subscription is already gone and counts as removed
 *   GET    {base}/resources?connectedAccountId=<externalId>&resourceType=<type>[&parent=<id>]
 *          → 200 { "items": [ { "id": "…", "name": "…", "hasChildren"?: true } ] }  (a bare array is accepted too)
 *
 * Deliveries go the other way: for each event of a subscription, the provider sends
 *
 *   POST   {callbackUrl}   body: the event as JSON (any JSON value; it becomes the run's `{trigger_payload}.data`)
 *          X-Agentry-Timestamp: <unix seconds>
 *          X-Agentry-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 *          → 202 { "eventId": "…" } (the same request again within 5 minutes answers the same eventId and records
 *            nothing more); 401 bad or stale signature (do not retry), 404 subscription gone (stop),
 *            400 body not JSON, 429 rate-limited (retry after Retry-After)
 *
 * (lib/triggers/delivery-signature.ts). Both fields are sent when the server has TRIGGER_SIGNING_KEY.
 *
 * A refusal is a 4xx whose JSON body carries `message` (or `error`, a string or `{ message }`). Mapping for
 * agentry's callers: 4xx → 400 naming the provider's message; 401 (agentry's key refused), 408, 429, 5xx, a
 * timeout, a network error or a malformed answer → 502.
 */
import { BadGatewayError, BadRequestError } from '../../lib/errors.js';
import type { TriggerProvider, TriggerResource, TriggerResourceQuery, TriggerSubscriptionRequest } from '../../lib/triggers/trigger-provider.js';

export interface HttpTriggerProviderOptions {
  /** Base URL of the provider's API, e.g. https://triggers.example.com/v1. */
  baseUrl: string;
  apiKey: string;
  /** How long one request may take (default 10 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_MESSAGE = 300;

interface Answer {
  status: number;
  body: unknown;
}

/** The provider's own explanation of a refusal, shortened; the status when it gave none. */
function providerMessage(answer: Answer, text: string): string {
  const body = answer.body as { message?: unknown; error?: unknown } | null;
  const candidates = [body?.message, body?.error, (body?.error as { message?: unknown } | undefined)?.message];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  const message = (found ?? text).trim() || `HTTP ${answer.status}`;
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

export class HttpTriggerProvider implements TriggerProvider {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;

  constructor(options: HttpTriggerProviderOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async subscribe(request: TriggerSubscriptionRequest): Promise<{ subscriptionId: string }> {
    const answer = await this.request('POST', '/trigger-subscriptions', 'the subscription', {
      connectedAccountId: request.connectedAccountExternalId,
      toolkit: request.toolkit,
      slug: request.slug,
      config: request.config,
      ...(request.callbackUrl && { callbackUrl: request.callbackUrl }),
      ...(request.secret && { secret: request.secret }),
    });
    const id = (answer.body as { id?: unknown } | null)?.id;
    if ((typeof id !== 'string' || id === '') && typeof id !== 'number') {
      throw new BadGatewayError('Trigger provider answered the subscription without an id');
    }
    return { subscriptionId: String(id) };
  }

  async unsubscribe(subscriptionId: string): Promise<void> {
    await this.request(
      'DELETE',
      `/trigger-subscriptions/${encodeURIComponent(subscriptionId)}`,
      `the removal of subscription ${subscriptionId}`,
      undefined,
      [404],
    );
  }

  async listResources(query: TriggerResourceQuery): Promise<TriggerResource[]> {
    const params = new URLSearchParams({ connectedAccountId: query.connectedAccountExternalId, resourceType: query.resourceType });
    if (query.parent !== undefined) params.set('parent', query.parent);
    const answer = await this.request('GET', `/resources?${params}`, `the ${query.resourceType} lookup`);
    const body = answer.body as { items?: unknown } | unknown[] | null;
    const items = Array.isArray(body) ? body : body?.items;
    if (!Array.isArray(items)) throw new BadGatewayError('Trigger provider answered the resource lookup without an items list');
    return items.map((item) => {
      const { id, name, hasChildren } = (item ?? {}) as Record<string, unknown>;
      if ((typeof id !== 'string' && typeof id !== 'number') || typeof name !== 'string') {
        throw new BadGatewayError('Trigger provider answered the resource lookup with an item lacking id or name');
      }
      return { id: String(id), name, hasChildren: hasChildren === true };
    });
  }

  /**
   * One call; answers a 2xx (or a status of `accepted`), throws the mapped error otherwise. `what` names the
   * request in messages ("refused the subscription: …").
   */
  private async request(method: string, path: string, what: string, body?: unknown, accepted: number[] = []): Promise<Answer> {
    let response: Response;
    try {
      // TRIGGER_PROVIDER_URL is the operator's: outside the outbound address policy, which is for users' URLs.
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError') {
        throw new BadGatewayError(`Trigger provider did not answer ${what} within ${this.timeoutMs} ms`);
      }
      throw new BadGatewayError(`Trigger provider is unreachable: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new BadGatewayError(`Trigger provider broke off its answer to ${what}: ${(error as Error).message}`);
    }
    let parsed: unknown = null;
    if (text.trim()) {
      try {
        parsed = JSON.parse(text);
      } catch {
        if (response.ok) throw new BadGatewayError(`Trigger provider answered ${what} with a body that is not JSON`);
      }
    }
    const answer = { status: response.status, body: parsed };
    if (response.ok || accepted.includes(response.status)) return answer;
    const message = providerMessage(answer, parsed === null ? text : '');
    if (response.status === 401) throw new BadGatewayError(`Trigger provider refused agentry's credentials (HTTP 401): ${message}`);
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw new BadRequestError(`Trigger provider refused ${what}: ${message}`);
    }
    throw new BadGatewayError(`Trigger provider failed ${what} (HTTP ${response.status}): ${message}`);
  }
}
