/** The pipe tables of a Markdown text, each as its rows of trimmed cells (the header row first, the rule left out). */
export function markdownTables(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    if (/^\|\s*---/.test(line)) continue;
    if (!current) {
      current = [];
      tables.push(current);
    }
    current.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return tables;
}
