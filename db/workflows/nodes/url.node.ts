import { invalid, isValidUrl, type NodeCheck } from './types.js';

/** WEBHOOK and API nodes: `url` must be a valid URL (`{variables}` allowed in API urls). */
export const checkUrl: NodeCheck = (node) => (isValidUrl(node.data.url) ? [] : [invalid('url', 'must be a valid http(s) URL')]);
