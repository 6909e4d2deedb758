/** BREAK: exits the innermost loop and continues on its `completed` path (the interpreter runs it); no outgoing edge. */
import type { NodeModule } from './node-module.js';

export const breakNode: NodeModule = {
  type: 'BREAK',
  scopes: ['automation'],
  summary: 'Exits the current loop, which continues on its completed path; outside a loop the run fails',
  data: { additionalProperties: false, properties: {} },
  handles: [],
};
