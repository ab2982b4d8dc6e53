/** Walks a Reddit-style tree answer: counts t1 nodes and the comments behind `more` stubs. */
// biome-ignore lint/suspicious/noExplicitAny: tree nodes are checked shape by shape.
export type Thing = { kind: string; data: any };

export interface TreeCount {
  shown: number;
  collapsed: number;
  stubs: number;
  maxDepth: number;
}

export function countTree(nodes: readonly Thing[]): TreeCount {
  const count: TreeCount = { shown: 0, collapsed: 0, stubs: 0, maxDepth: -1 };
  const walk = (level: readonly Thing[]) => {
    for (const node of level) {
      if (node.kind === "more") {
        count.collapsed += node.data.count;
        count.stubs += 1;
        continue;
      }
      count.shown += 1;
      count.maxDepth = Math.max(count.maxDepth, node.data.depth);
      if (node.data.replies !== "") walk(node.data.replies.data.children);
    }
  };
  walk(nodes);
  return count;
}

/** Every t1 node, depth first. */
export function shownComments(nodes: readonly Thing[]): Thing["data"][] {
  return nodes.flatMap((node) =>
    node.kind === "t1"
      ? [node.data, ...(node.data.replies === "" ? [] : shownComments(node.data.replies.data.children))]
      : [],
  );
}
