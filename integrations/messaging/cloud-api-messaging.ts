/**
 * The messaging adapter: template messages through the messaging product's Cloud API over HTTP
 * (`POST {baseUrl}/{phoneNumberId}/messages` with a Bearer token). 429 and 5xx answers are transient (Temporal
 * retries the node); other 4xx are permanent and fail the node with the API's message.
 */
import { NodeError } from '../../lib/errors.js';

/** Where the Cloud API is and the token agentry sends it (a number's own settings, or MESSAGING_API_URL's). */
export interface MessagingConfig {
  baseUrl: string;
  token: string;
}

/** Parameter values of a template's parts, as the node's `templateVariables` holds them (a value or a list). */
export interface TemplateValues {
  header?: unknown;
  body?: unknown;
  buttons?: unknown;
}

export interface TemplateMessage {
  phoneNumberId: string;
  /** The recipient in international format (+ and digits). */
  to: string;
  template: string;
  language: string;
  values: TemplateValues;
}

const list = (value: unknown): string[] =>
  value === undefined || value === null ? [] : (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));

const textParameters = (values: string[]) => values.map((text) => ({ type: 'text', text }));

/** The Cloud API's `components` of a template message. */
export function templateComponents(values: TemplateValues): Record<string, unknown>[] {
  const components: Record<string, unknown>[] = [];
  const [header, body, buttons] = [list(values.header), list(values.body), list(values.buttons)];
  if (header.length) components.push({ type: 'header', parameters: textParameters(header) });
  if (body.length) components.push({ type: 'body', parameters: textParameters(body) });
  buttons.forEach((text, index) => components.push({ type: 'button', sub_type: 'url', index: String(index), parameters: textParameters([text]) }));
  return components;
}

/** Sends one template message; answers the Cloud API's message id. */
export async function sendTemplateMessage(
  config: MessagingConfig,
  message: TemplateMessage,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string> {
  // The operator's endpoint (MESSAGING_API_URL, or a number's URL set with the admin CLI), not a user's: outside the
  // outbound address policy (lib/outbound/), so a Cloud API on the operator's own network can be used.
  const response = await fetch(`${config.baseUrl}/${encodeURIComponent(message.phoneNumberId)}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.to.replace(/^\+/, ''),
      type: 'template',
      template: { name: message.template, language: { code: message.language }, components: templateComponents(message.values) },
    }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
  });
  const text = await response.text();
  let body: { messages?: { id?: string }[]; error?: { message?: string } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // the message below quotes the text
  }
  const detail = body.error?.message ?? text.slice(0, 300);
  if (response.status === 429 || response.status >= 500) throw new Error(`The messaging API answered ${response.status}: ${detail}`);
  if (!response.ok) throw new NodeError(`The messaging API refused the message (${response.status}): ${detail}`, 'MessageRefused');
  const id = body.messages?.[0]?.id;
  if (!id) throw new Error('The messaging API answered without a message id');
  return id;
}
