/**
 * The app's only way to the server: GraphQL over HTTP on the same origin. Plain requests go as
 * JSON POSTs, uploads as the GraphQL multipart request spec over XMLHttpRequest (fetch has no
 * upload progress), and subscriptions over Yoga's server-sent events (EventSource, a GET).
 *
 * The session is an HttpOnly cookie the browser sends by itself; every POST also echoes the
 * readable CSRF cookie in X-CSRF-Token (double-submit), which a cross-site page cannot read.
 */
import { type DocumentNode, print } from 'graphql';
import type { TadaDocumentNode } from 'gql.tada';

const ENDPOINT = '/graphql';
const CSRF_COOKIE = 'transmute_csrf';

/** A failure put in plain words for the page; `code` and `reason` come from the server's extensions. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

interface GraphQLErrorShape {
  message: string;
  extensions?: { code?: string; reason?: string };
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: GraphQLErrorShape[];
}

function csrfToken(): string {
  const entry = document.cookie.split('; ').find((part) => part.startsWith(`${CSRF_COOKIE}=`));
  return entry ? decodeURIComponent(entry.slice(CSRF_COOKIE.length + 1)) : '';
}

/** What the page shows for a failed HTTP exchange, when the body said nothing usable. */
function statusMessage(status: number): string {
  if (status === 0) return 'The server could not be reached. Check your connection and try again.';
  if (status === 401) return 'Please sign in again.';
  if (status === 403) return 'This is not allowed for your account.';
  if (status === 413) return 'The file is larger than your plan allows.';
  if (status === 429) return 'Too many requests at once. Wait a minute and try again.';
  if (status >= 500) return 'The server had a problem. Try again in a moment.';
  return `The request failed (HTTP ${status}).`;
}

/** The data of a GraphQL answer, or an ApiError carrying the server's own message. */
function unwrap<T>(status: number, text: string): T {
  let body: GraphQLResponse<T> | undefined;
  try {
    body = JSON.parse(text) as GraphQLResponse<T>;
  } catch {
    throw new ApiError(statusMessage(status));
  }
  const error = body.errors?.[0];
  if (error) throw new ApiError(error.message, error.extensions?.code, error.extensions?.reason);
  if (body.data == null) throw new ApiError(statusMessage(status));
  return body.data;
}

const printed = new WeakMap<object, string>();
/** Any document: its result and variable types are not read here. */
function queryText(document: DocumentNode): string {
  let text = printed.get(document);
  if (!text) {
    text = print(document);
    printed.set(document, text);
  }
  return text;
}

export async function request<Result, Variables>(
  document: TadaDocumentNode<Result, Variables>,
  ...[variables]: Variables extends Record<string, never> ? [] : [Variables]
): Promise<Result> {
  let response: Response;
  try {
    response = await fetch(ENDPOINT, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrfToken() },
      body: JSON.stringify({ query: queryText(document), variables: variables ?? {} }),
    });
  } catch {
    throw new ApiError(statusMessage(0));
  }
  return unwrap<Result>(response.status, await response.text());
}

/**
 * A mutation with files, per the GraphQL multipart request spec: `operations` holds the query and
 * variables with null where each file goes, `map` says which variable path each file part fills.
 * `onProgress` gets the share of the body sent, 0 to 1.
 */
export function upload<Result, Variables extends Record<string, unknown>>(
  document: TadaDocumentNode<Result, Variables>,
  variables: Variables,
  files: { path: string; file: File }[],
  onProgress: (sent: number) => void,
  signal?: AbortSignal,
): Promise<Result> {
  const operationVariables = structuredClone({ ...variables }) as Record<string, unknown>;
  for (const { path } of files) setPath(operationVariables, path, null);
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: queryText(document), variables: operationVariables }));
  form.append(
    'map',
    JSON.stringify(Object.fromEntries(files.map(({ path }, index) => [String(index), [`variables.${path}`]]))),
  );
  for (const [index, { file }] of files.entries()) form.append(String(index), file, file.name);

  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', ENDPOINT);
    xhr.withCredentials = true;
    xhr.setRequestHeader('x-csrf-token', csrfToken());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.upload.addEventListener('load', () => onProgress(1));
    xhr.addEventListener('load', () => {
      try {
        resolve(unwrap<Result>(xhr.status, xhr.responseText));
      } catch (error) {
        reject(error);
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(statusMessage(0))));
    xhr.addEventListener('abort', () => reject(new ApiError('The upload was cancelled.')));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = value;
}

/**
 * A subscription over server-sent events (Yoga's "distinct connections" mode: `next` events carry
 * a GraphQL answer, `complete` ends the stream). Returns the function that closes it.
 */
export function subscribe<Result, Variables>(
  document: TadaDocumentNode<Result, Variables>,
  variables: Variables,
  handlers: { next(data: Result): void; error(error: ApiError): void; complete(): void },
): () => void {
  const params = new URLSearchParams({ query: queryText(document), variables: JSON.stringify(variables) });
  const url = `${ENDPOINT}?${params}`;
  const source = new EventSource(url, { withCredentials: true });
  let finished = false;
  const finish = () => {
    finished = true;
    source.close();
  };
  source.addEventListener('next', (event) => {
    try {
      handlers.next(unwrap<Result>(200, (event as MessageEvent<string>).data));
    } catch (error) {
      finish();
      handlers.error(error instanceof ApiError ? error : new ApiError(String(error)));
    }
  });
  source.addEventListener('complete', () => {
    if (finished) return;
    finish();
    handlers.complete();
  });
  // EventSource reconnects by itself after a dropped connection. A stream the server refused
  // (closed), or one that failed to come back three times running, is reported once and closed,
  // so the caller can fall back to asking.
  let failures = 0;
  source.addEventListener('open', () => (failures = 0));
  source.addEventListener('error', () => {
    if (finished || (source.readyState !== EventSource.CLOSED && ++failures < 3)) return;
    finish();
    handlers.error(new ApiError('Live progress was interrupted.'));
  });
  return finish;
}
