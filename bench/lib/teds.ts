/**
 * TEDS (tree-edit-distance similarity, as PubTabNet scores tables): a table is a tree, table -> rows -> cells, and
 * TEDS = 1 - TED(a, b) / max(|a|, |b|), where TED is the Zhang-Shasha tree edit distance with unit cost to insert or
 * delete a node, and renaming a cell into a cell costs the normalised Levenshtein distance of their texts (a row
 * into a row costs nothing; a row into a cell, 1). Merged cells are written as the corpus truth writes them: the
 * text in the span's top-left cell and the covered cells empty, so a span is scored cell by cell.
 */
import { distance } from 'fastest-levenshtein';

export interface TreeNode {
  kind: 'table' | 'row' | 'cell';
  text: string;
  children: TreeNode[];
}

const tableTree = (rows: readonly (readonly string[])[]): TreeNode => ({
  kind: 'table',
  text: '',
  children: rows.map((row) => ({
    kind: 'row',
    text: '',
    children: row.map((text) => ({ kind: 'cell', text, children: [] })),
  })),
});

function renameCost(a: TreeNode, b: TreeNode): number {
  if (a.kind !== b.kind) return 1;
  if (a.kind !== 'cell' || a.text === b.text) return 0;
  return distance(a.text, b.text) / Math.max(a.text.length, b.text.length);
}

/** The nodes in post-order, each with the post-order index of its leftmost leaf. */
function postOrder(root: TreeNode): { nodes: TreeNode[]; leftmost: number[] } {
  const nodes: TreeNode[] = [];
  const leftmost: number[] = [];
  const visit = (node: TreeNode): number => {
    let first = -1;
    for (const child of node.children) {
      const childLeftmost = visit(child);
      if (first < 0) first = childLeftmost;
    }
    nodes.push(node);
    const index = nodes.length - 1;
    leftmost.push(first < 0 ? index : first);
    return leftmost[index]!;
  };
  visit(root);
  return { nodes, leftmost };
}

/** Key roots: the highest node of each leftmost-leaf class (Zhang and Shasha, 1989). */
function keyRoots(leftmost: readonly number[]): number[] {
  const highest = new Map<number, number>();
  for (const [index, leaf] of leftmost.entries()) highest.set(leaf, index);
  return [...highest.values()].sort((a, b) => a - b);
}

export function treeEditDistance(a: TreeNode, b: TreeNode): number {
  const A = postOrder(a);
  const B = postOrder(b);
  const n = A.nodes.length;
  const m = B.nodes.length;
  const tree = Array.from({ length: n }, () => new Float64Array(m));
  for (const i of keyRoots(A.leftmost)) {
    for (const j of keyRoots(B.leftmost)) {
      const li = A.leftmost[i]!;
      const lj = B.leftmost[j]!;
      const rows = i - li + 2;
      const cols = j - lj + 2;
      // forest[x][y]: distance between A's forest li..li+x-1 and B's forest lj..lj+y-1.
      const forest = Array.from({ length: rows }, () => new Float64Array(cols));
      for (let x = 1; x < rows; x++) forest[x]![0] = forest[x - 1]![0]! + 1;
      for (let y = 1; y < cols; y++) forest[0]![y] = forest[0]![y - 1]! + 1;
      for (let x = 1; x < rows; x++) {
        const ai = li + x - 1;
        for (let y = 1; y < cols; y++) {
          const bj = lj + y - 1;
          const remove = forest[x - 1]![y]! + 1;
          const insert = forest[x]![y - 1]! + 1;
          if (A.leftmost[ai] === li && B.leftmost[bj] === lj) {
            const value = Math.min(remove, insert, forest[x - 1]![y - 1]! + renameCost(A.nodes[ai]!, B.nodes[bj]!));
            forest[x]![y] = value;
            tree[ai]![bj] = value;
          } else {
            const px = A.leftmost[ai]! - li;
            const py = B.leftmost[bj]! - lj;
            forest[x]![y] = Math.min(remove, insert, forest[px]![py]! + tree[ai]![bj]!);
          }
        }
      }
    }
  }
  return tree[n - 1]![m - 1]!;
}

const size = (rows: readonly (readonly string[])[]) => 1 + rows.length + rows.reduce((n, row) => n + row.length, 0);

/** TEDS of two tables given as rows of cell texts (header row first), 0..1. */
export function teds(predicted: readonly (readonly string[])[], truth: readonly (readonly string[])[]): number {
  const distance = treeEditDistance(tableTree(predicted), tableTree(truth));
  return Math.max(0, 1 - distance / Math.max(size(predicted), size(truth)));
}
