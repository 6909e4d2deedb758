/**
 * WEBHOOK: the entry node of runs started by calls to the account's incoming webhooks (`triggerByWebhookIds`); its
 * output is the call's JSON body.
 */
import { includes } from '../lib/events/event-match.js';
import { invalid, isValidUrl, type NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, idList, type NodeModule } from './node-module.js';

const checkUrl: NodeCheck = (node) => (isValidUrl(node.data.url) ? [] : [invalid('url', 'must be a valid http(s) URL')]);

export const webhookNode: NodeModule = {
  type: 'WEBHOOK',
  scopes: ['automation'],
  summary: 'Entry point fed by incoming webhooks: each call to one of triggerByWebhookIds starts a run with its JSON body',
  data: {
    required: ['url'],
    properties: {
      url: { type: 'string', description: 'The inbound URL (a valid http(s) URL)' },
      triggerByWebhookIds: idList('incoming webhooks (POST /incoming-webhooks)', { type: 'string' }),
    },
  },
  handles: DEFAULT_HANDLES,
  entry: true,
  matchesEvent: (data, event) => event.type === 'INCOMING_WEBHOOK' && includes(data.triggerByWebhookIds, event.payload.webhookId),
  checks: [checkUrl],
};
