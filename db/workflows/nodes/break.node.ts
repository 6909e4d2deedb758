import { invalid, type NodeCheck } from './types.js';

/** BREAK: `data` holds only `type`. */
export const checkBreak: NodeCheck = (node) =>
  Object.keys(node.data)
    .filter((key) => key !== 'type')
    .map((key) => invalid(key, 'BREAK nodes carry no data besides type'));
