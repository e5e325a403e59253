/**
 * A small Chrome DevTools Protocol client over the browser's own pipe (`--remote-debugging-pipe`: the browser reads
 * commands from its fd 3 and writes replies and events to its fd 4, each message JSON ended by a NUL byte). Sessions
 * are flattened (`Target.attachToTarget { flatten: true }`): a message for a page carries its `sessionId`.
 *
 * Why not Playwright: its client and server dispatchers, the stack it captures per call and the helpers it installs
 * in each page were most of the sandbox's CPU per document (bench/NOTES.md, "Service CPU per job").
 */
import type { Readable, Writable } from 'node:stream';

/** An error the browser answered a command with (its own words, e.g. "Printing failed"). */
export class CdpError extends Error {
  constructor(
    readonly method: string,
    message: string,
  ) {
    super(message);
    this.name = 'CdpError';
  }
}

/** The pipe ended (the browser exited or was killed) before the command was answered. */
export class CdpClosedError extends Error {
  constructor(method: string) {
    super(`The browser closed before answering ${method}`);
    this.name = 'CdpClosedError';
  }
}

type Params = Record<string, unknown>;
// Protocol replies and events are JSON of the browser's making: callers read the fields they asked for.
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Message = any;
type Listener = (params: Message) => void;

interface Pending {
  method: string;
  resolve(result: Message): void;
  reject(err: Error): void;
}

export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly closeListeners = new Set<() => void>();
  private buffered: Buffer[] = [];
  private ended = false;
  /** Settles once the pipe has ended; every command still waiting is then rejected. */
  readonly closed: Promise<void>;

  /** `toBrowser` is the browser's fd 3, `fromBrowser` its fd 4. */
  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    this.closed = new Promise<void>((resolve) => {
      const end = () => {
        if (this.ended) return;
        this.ended = true;
        for (const [id, call] of this.pending) {
          this.pending.delete(id);
          call.reject(new CdpClosedError(call.method));
        }
        for (const listener of this.closeListeners) listener();
        this.closeListeners.clear();
        resolve();
      };
      fromBrowser.on('end', end);
      fromBrowser.on('close', end);
      fromBrowser.on('error', end);
      // A write to a browser that is gone fails the same way: its pipe is closed.
      toBrowser.on('error', end);
      toBrowser.on('close', end);
    });
    fromBrowser.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  get isClosed(): boolean {
    return this.ended;
  }

  /** Send `method` (to the session `sessionId`, else the browser) and resolve with its result. */
  send<T = Message>(method: string, params: Params = {}, sessionId?: string): Promise<T> {
    if (this.ended) return Promise.reject(new CdpClosedError(method));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.toBrowser.write(
        `${JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params })}\0`,
      );
    });
  }

  /** Calls `listener` for each `method` event of `sessionId` (undefined: the browser's own); returns the remover. */
  on(method: string, sessionId: string | undefined, listener: Listener): () => void {
    const key = eventKey(method, sessionId);
    let set = this.listeners.get(key);
    if (!set) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  /** Calls `listener` once the pipe ends (at once if it has); returns the remover. */
  onClose(listener: () => void): () => void {
    if (this.ended) {
      listener();
      return () => undefined;
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      const part = chunk.subarray(start, end);
      const whole = this.buffered.length ? Buffer.concat([...this.buffered, part]) : part;
      this.buffered = [];
      start = end + 1;
      this.dispatch(whole.toString('utf8'));
    }
    // A copy: the rest waits for the next chunk, and the stream's buffer is not ours to keep.
    if (start < chunk.length) this.buffered.push(Buffer.from(chunk.subarray(start)));
  }

  private dispatch(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.id === 'number') {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if (message.error) call.reject(new CdpError(call.method, String(message.error.message ?? 'Protocol error')));
      else call.resolve(message.result ?? {});
      return;
    }
    const listeners = this.listeners.get(eventKey(message.method, message.sessionId));
    if (!listeners) return;
    for (const listener of [...listeners]) listener(message.params ?? {});
  }
}

const eventKey = (method: string, sessionId: string | undefined) => `${sessionId ?? ''}\n${method}`;
