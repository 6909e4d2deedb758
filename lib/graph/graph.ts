/**
 * The graph model of flows and workflows, pure (no I/O): the API edits it, the runtime interprets it.
 * An edge connects a node's output `handle` to the node named by `targetEdge`. The same edge object lives inline
 * on its source node (`node.edges`) and in the graph's global list; `normalize` makes the two agree.
 */

export interface Position {
  positionX: number;
  positionY: number;
}

export interface GraphEdge {
  /** Source node id. */
  source: string;
  /** Output port of the source node (`default`, `body`, `completed`, a condition id, …). */
  handle: string;
  /** Target node id. */
  targetEdge: string;
}

export interface GraphNode {
  nodeId: string;
  alias: string;
  position: Position;
  type: string;
  /** Payload per type; `data.type` repeats the node type. */
  data: Record<string, unknown> & { type: string };
  /** Outgoing edges of this node (the same objects as in the global list). */
  edges: GraphEdge[];
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** Rebuilds both edge views from the global list: one edge per (source, handle), only between existing nodes. */
export function normalize(graph: Graph): Graph {
  const ids = new Set(graph.nodes.map((n) => n.nodeId));
  const byHandle = new Map<string, GraphEdge>();
  for (const edge of graph.edges) {
    if (ids.has(edge.source) && ids.has(edge.targetEdge)) byHandle.set(`${edge.source}\u0000${edge.handle}`, edge);
  }
  const edges = [...byHandle.values()].map((e) => ({ source: e.source, handle: e.handle, targetEdge: e.targetEdge }));
  const nodes = graph.nodes.map((node) => ({ ...node, edges: edges.filter((e) => e.source === node.nodeId) }));
  return { nodes, edges };
}

export function findNode(graph: Graph, nodeId: string): GraphNode | undefined {
  return graph.nodes.find((n) => n.nodeId === nodeId);
}

export function withNode(graph: Graph, node: GraphNode): Graph {
  const exists = graph.nodes.some((n) => n.nodeId === node.nodeId);
  const nodes = exists ? graph.nodes.map((n) => (n.nodeId === node.nodeId ? node : n)) : [...graph.nodes, node];
  return normalize({ nodes, edges: graph.edges });
}

/** Removes a node with its incoming and outgoing edges. */
export function withoutNode(graph: Graph, nodeId: string): Graph {
  return normalize({
    nodes: graph.nodes.filter((n) => n.nodeId !== nodeId),
    edges: graph.edges.filter((e) => e.source !== nodeId && e.targetEdge !== nodeId),
  });
}

/** Adds an edge, replacing the edge already leaving the same handle of the same node. */
export function withEdge(graph: Graph, edge: GraphEdge): Graph {
  const edges = graph.edges.filter((e) => !(e.source === edge.source && e.handle === edge.handle));
  return normalize({ nodes: graph.nodes, edges: [...edges, edge] });
}

export function withoutEdge(graph: Graph, source: string, handle: string): Graph {
  return normalize({ nodes: graph.nodes, edges: graph.edges.filter((e) => !(e.source === source && e.handle === handle)) });
}
