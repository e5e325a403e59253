/** Checks that every body node of a document model sits on one of its pages, inside that page. */
import { expect } from 'vitest';
import type { BoundingBox, Document, ListItem } from '../../../schema/index.js';

interface Located {
  id: string;
  type: string;
  page?: number;
  box?: BoundingBox;
}

/** Every node of the body, depth first: blocks, list items and what nests in them. */
export function bodyNodes(document: Document): Located[] {
  const nodes: Located[] = [];
  const visit = (node: Located & { items?: ListItem[]; children?: unknown[] }) => {
    nodes.push(node);
    for (const item of node.items ?? []) visit({ ...item, type: 'listItem' });
    for (const child of (node.children ?? []) as Located[]) visit(child);
  };
  for (const block of document.body) visit(block as Located);
  return nodes;
}

/** Each body node has a page of the document and a box of positive size within that page. */
export function expectBoxedWithinPages(document: Document): void {
  const pages = new Map((document.pages ?? []).map((page) => [page.number, page]));
  expect(pages.size).toBeGreaterThan(0);
  for (const node of bodyNodes(document)) {
    const where = `${node.type} ${node.id}`;
    const page = pages.get(node.page ?? 0);
    expect(page, `${where} has a page of the document`).toBeDefined();
    expect(node.box, `${where} has a box`).toBeDefined();
    const { x0, y0, x1, y1 } = node.box!;
    expect(x0, where).toBeGreaterThanOrEqual(0);
    expect(y0, where).toBeGreaterThanOrEqual(0);
    expect(x1, where).toBeLessThanOrEqual(page!.width);
    expect(y1, where).toBeLessThanOrEqual(page!.height);
    expect(x1, where).toBeGreaterThan(x0);
    expect(y1, where).toBeGreaterThan(y0);
  }
}
