/**
 * Agenda's job processor logs through `debug`, calling `log.extend('process')` and the like several times per job
 * name at every poll: each call builds a new debug instance (closures, an accessor, a TTY check), logging enabled or
 * not. With one job name per plugin and the embedded server polling, that was the API process's main allocation at
 * idle, and V8 promoted it: the old generation filled with it at ~4 MB/s and the heap grew to 3-4 times its live size
 * before each full collection, memory the process then kept (bench/NOTES.md, "Memory of the API process").
 *
 * Imported before agenda by every module of the queue that loads agenda's code (ES modules evaluate in import
 * order): from then on, every debug instance hands back the same child for the same namespace. `debug` calls its
 * `init` hook for each instance it creates; the hook is where `extend` is replaced. The namespaces are the literals
 * in agenda's code; past MAX_CHILDREN per instance (a library extending with data) children are made as before.
 */
import createDebug from 'debug';

const MAX_CHILDREN = 64;
const REMEMBERING = Symbol.for('transmute.debug.remembersChildren');

type Debugger = createDebug.Debugger;
type Hooked = typeof createDebug & { init?: (instance: Debugger) => void; [REMEMBERING]?: true };

function rememberChildren(instance: Debugger): void {
  const extend = instance.extend;
  const children = new Map<string, Debugger>();
  instance.extend = function rememberedExtend(this: Debugger, namespace: string, delimiter?: string) {
    if (this !== instance) return extend.call(this, namespace, delimiter);
    const key = `${delimiter ?? ':'}\0${namespace}`;
    let child = children.get(key);
    if (!child) {
      child = extend.call(this, namespace, delimiter);
      if (children.size < MAX_CHILDREN) children.set(key, child);
    }
    return child;
  };
}

/** Installs the hook once per `debug` module (idempotent). */
export function rememberDebugChildren(): void {
  const debug = createDebug as Hooked;
  if (debug[REMEMBERING]) return;
  debug[REMEMBERING] = true;
  const init = debug.init;
  debug.init = (instance) => {
    init?.(instance);
    rememberChildren(instance);
  };
}

rememberDebugChildren();
