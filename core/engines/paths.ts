/**
 * Where each engine command lives. A command is looked up on PATH unless the operator points it
 * elsewhere with `<COMMAND>_PATH` (PDFTOTEXT_PATH, GS_PATH, SOFFICE_PATH...): config reads those
 * variables and hands them here once at start-up (configureEnginePaths). runProcess and
 * commandExists resolve every command through this table, so runs, the registry's engine check
 * and /readyz all see the same binary. Nothing here reads the environment.
 */

let overrides: Readonly<Record<string, string>> = Object.freeze({});

/** The environment variable that overrides `command`'s path: pdftotext -> PDFTOTEXT_PATH, gs -> GS_PATH. */
export function pathVariable(command: string): string {
  return `${command.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_PATH`;
}

/** Replace the overrides (command -> path); unset or empty entries mean "look it up on PATH". */
export function configureEnginePaths(paths: Readonly<Record<string, string | undefined>>): void {
  overrides = Object.freeze(
    Object.fromEntries(Object.entries(paths).filter((entry): entry is [string, string] => Boolean(entry[1]))),
  );
}

/** The overrides in force, as plain data (command -> path): what a child process is configured with. */
export function enginePaths(): Record<string, string> {
  return { ...overrides };
}

/** What to execute for `command`: its override, else the command itself (looked up on PATH). */
export function resolveCommand(command: string): string {
  return Object.hasOwn(overrides, command) ? overrides[command]! : command;
}
