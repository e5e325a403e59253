/**
 * Names every surface derives from a plugin or tool id (`parse-cv`): the operation table's names
 * (`parseCv`, `getParseCvResults`), tRPC's procedures and GraphQL's types (`ParseCvOptions`).
 */

/** `parse-cv` as `ParseCv` (a leading digit gets a `P`, so the name is a valid identifier). */
export function pascalCase(id: string): string {
  const name = id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  return /^[0-9]/.test(name) ? `P${name}` : name;
}

/** `parse-cv` as `parseCv`. */
export const camelCase = (id: string) => pascalCase(id).replace(/^./, (c) => c.toLowerCase());

/** Options types of tools with no plugin (the spec's fields of a tool not installed) are named after the tool. */
export function optionsTypeName(tool: string): string {
  return `${pascalCase(tool)}Options`;
}
