/** Module hooks of record-imports.mjs (they run on the loader thread). */
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, `${context.parentURL ?? 'entry'}\t${resolved.url}\n`);
  return resolved;
}
