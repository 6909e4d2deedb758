/** START (flows): the entry of an agent's default flow, run at the start of every conversation; exactly one there. */
import { DEFAULT_HANDLES, type NodeModule } from './node-module.js';

export const startNode: NodeModule = {
  type: 'START',
  scopes: ['flow'],
  summary: 'Entry point of the default flow: runs at the start of every conversation (exactly one, default flow only)',
  data: { additionalProperties: false, properties: {} },
  handles: DEFAULT_HANDLES,
  entry: true,
};
