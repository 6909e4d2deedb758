/**
 * The difference between two graphs of one owner (two versions of a flow or a workflow), pure: nodes matched by
 * their id and edges by their source and handle, each one added, removed or changed. A changed node lists its
 * changes as JSON Pointer paths into the node (`/data/message`) with the old and the new value (absent where the
 * value is), and every node a one-line summary a person can read.
 */
import type { Graph, GraphEdge, GraphNode } from './graph.js';

export interface ValueChange {
  /** JSON Pointer (RFC 6901) into the node: `/alias`, `/position/positionX`, `/data/message`. */
  path: string;
  /** Absent when the value was added. */
  old?: unknown;
  /** Absent when the value was removed. */
  new?: unknown;
}

export interface NodeDiff {
  nodeId: string;
  type: string;
  alias: string;
  summary: string;
}

export interface ChangedNode extends NodeDiff {
  changes: ValueChange[];
}

export interface ChangedEdge {
  source: string;
  handle: string;
  old: string;
  new: string;
}

export interface GraphDiff {
  nodes: { added: NodeDiff[]; removed: NodeDiff[]; changed: ChangedNode[] };
  edges: { added: GraphEdge[]; removed: GraphEdge[]; changed: ChangedEdge[] };
  /** One line per changed node, then per changed edge, in that order. */
  summary: string[];
}

const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The changes from `before` to `after`, deepest first where both are objects or both arrays. */
export function valueChanges(before: unknown, after: unknown, path = ''): ValueChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => {
      const at = `${path}/${pointerToken(key)}`;
      if (!(key in before)) return [{ path: at, new: after[key] }];
      if (!(key in after)) return [{ path: at, old: before[key] }];
      return valueChanges(before[key], after[key], at);
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: ValueChange[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const at = `${path}/${i}`;
      if (i >= before.length) changes.push({ path: at, new: after[i] });
      else if (i >= after.length) changes.push({ path: at, old: before[i] });
      else changes.push(...valueChanges(before[i], after[i], at));
    }
    return changes;
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path, old: before, new: after }];
}

/** What a node's diff compares: everything but its inline edges, which the edge list holds. */
const comparable = ({ alias, position, type, data }: GraphNode) => ({ alias, position, type, data });

const short = (value: unknown): string => {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

const named = (node: GraphNode) => `${node.type} ${node.nodeId}${node.alias ? ` ("${node.alias}")` : ''}`;

function changeText(change: ValueChange): string {
  const field = change.path.slice(1).replace(/\//g, '.');
  if (!('old' in change)) return `${field} set to ${short(change.new)}`;
  if (!('new' in change)) return `${field} removed (was ${short(change.old)})`;
  return `${field} ${short(change.old)} → ${short(change.new)}`;
}

function changedSummary(node: GraphNode, changes: ValueChange[]): string {
  const moved = changes.every((c) => c.path.startsWith('/position/'));
  if (moved) return `moved ${named(node)}`;
  const shown = changes.filter((c) => !c.path.startsWith('/position/'));
  const listed = shown.slice(0, 3).map(changeText).join('; ');
  return `changed ${named(node)}: ${listed}${shown.length > 3 ? `; and ${shown.length - 3} more` : ''}`;
}

const edgeKey = (e: Pick<GraphEdge, 'source' | 'handle'>) => `${e.source}\u0000${e.handle}`;
const edgeText = (e: GraphEdge) => `${e.source} —${e.handle}→ ${e.targetEdge}`;

export function diffGraphs(from: Graph, to: Graph): GraphDiff {
  const before = new Map(from.nodes.map((n) => [n.nodeId, n]));
  const after = new Map(to.nodes.map((n) => [n.nodeId, n]));
  const view = (node: GraphNode, summary: string): NodeDiff => ({ nodeId: node.nodeId, type: node.type, alias: node.alias, summary });
  const added = to.nodes.filter((n) => !before.has(n.nodeId)).map((n) => view(n, `added ${named(n)}`));
  const removed = from.nodes.filter((n) => !after.has(n.nodeId)).map((n) => view(n, `removed ${named(n)}`));
  const changed = to.nodes.flatMap((n) => {
    const old = before.get(n.nodeId);
    const changes = old ? valueChanges(comparable(old), comparable(n)) : [];
    return changes.length ? [{ ...view(n, changedSummary(n, changes)), changes }] : [];
  });
  const edgesBefore = new Map(from.edges.map((e) => [edgeKey(e), e]));
  const edgesAfter = new Map(to.edges.map((e) => [edgeKey(e), e]));
  const edgeView = ({ source, handle, targetEdge }: GraphEdge): GraphEdge => ({ source, handle, targetEdge });
  const edges = {
    added: to.edges.filter((e) => !edgesBefore.has(edgeKey(e))).map(edgeView),
    removed: from.edges.filter((e) => !edgesAfter.has(edgeKey(e))).map(edgeView),
    changed: to.edges.flatMap((e) => {
      const old = edgesBefore.get(edgeKey(e));
      return old && old.targetEdge !== e.targetEdge ? [{ source: e.source, handle: e.handle, old: old.targetEdge, new: e.targetEdge }] : [];
    }),
  };
  const summary = [
    ...[...added, ...removed, ...changed].map((n) => n.summary),
    ...edges.added.map((e) => `added edge ${edgeText(e)}`),
    ...edges.removed.map((e) => `removed edge ${edgeText(e)}`),
    ...edges.changed.map((e) => `edge ${e.source} —${e.handle}→ now leads to ${e.new} (was ${e.old})`),
  ];
  return { nodes: { added, removed, changed }, edges, summary };
}
