// The console's only way to the server: the public REST API under api/v1 (relative, so that the
// console works at / and under a servlet container's context path) and its event stream.

// The Authorization header, in this tab's memory only: never in localStorage or sessionStorage.
let authorization = null;

/** The header that marks the console's writes; the server refuses a browser's write without it (CSRF). */
const CSRF_HEADER = 'X-Requested-By';

export function setCredentials(user, password) {
  const bytes = new TextEncoder().encode(user + ':' + password);
  authorization = 'Basic ' + btoa(String.fromCharCode(...bytes));
}

export function clearCredentials() {
  authorization = null;
}

/** A refused request: the server's RFC 9457 problem details (status, title, detail, field). */
export class Problem extends Error {
  constructor(problem, status) {
    super(problem.detail || problem.title || 'HTTP ' + status);
    this.status = status;
    this.title = problem.title || '';
    this.field = problem.field || null;
  }
}

/** Called when the server no longer accepts the credentials (401): the console asks for them again. */
let onUnauthorized = () => {};
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

/**
 * One call of the API. credentials 'omit': the browser adds nothing it may have cached, and shows
 * no login prompt of its own on a 401; the Authorization header is ours.
 */
export async function api(method, path, body) {
  const headers = { Accept: 'application/json', Authorization: authorization };
  if (method !== 'GET') headers[CSRF_HEADER] = 'vrouter-console';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch('api/v1/' + path, {
      method, headers, credentials: 'omit', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new Problem({ title: 'Unreachable', detail: 'the server cannot be reached' }, 0);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      data = { detail: text.slice(0, 200) };
    }
  }
  if (!response.ok) {
    const problem = new Problem(data || { title: response.statusText }, response.status);
    if (response.status === 401 && path !== 'session') onUnauthorized(problem);
    throw problem;
  }
  return data;
}

/** /health: liveness and readiness of the server and its driver (public, answers 503 when not ready). */
export async function health() {
  const response = await fetch('health', { headers: { Accept: 'application/json' }, credentials: 'omit', cache: 'no-store' });
  return response.json();
}

/**
 * Follows api/v1/events until stopped: EventSource cannot send an Authorization header, so the stream
 * is read with fetch. Calls onEvent(type, event) per event and onStatus('live' | 'down') when the
 * stream opens or breaks (with why); after a break it reconnects, with growing pauses, and calls
 * onStatus('live') again (the caller re-reads what it may have missed). Returns a function that stops it.
 */
export function followEvents(onEvent, onStatus) {
  const stop = new AbortController();
  (async () => {
    let pause = 500;
    while (!stop.signal.aborted) {
      try {
        const response = await fetch('api/v1/events', {
          headers: { Accept: 'text/event-stream', Authorization: authorization },
          credentials: 'omit', cache: 'no-store', signal: stop.signal,
        });
        if (response.status === 401) {
          onUnauthorized(new Problem({ detail: 'the credentials are no longer accepted' }, 401));
          return;
        }
        if (!response.ok) {
          // 429 or 503: the server's limits on event streams (rest.max-event-streams[-per-client]).
          const problem = await response.json().catch(() => ({}));
          throw new Error(problem.detail || 'HTTP ' + response.status);
        }
        onStatus('live');
        pause = 500;
        await readServerSentEvents(response.body, onEvent);
        onStatus('down', 'the event stream ended');
      } catch (e) {
        if (stop.signal.aborted) return;
        onStatus('down', e.message);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 10000);
    }
  })();
  return () => stop.abort();
}

/** Parses a text/event-stream body (the subset the server writes: event, id, data, comments). */
async function readServerSentEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let type = 'message';
  let data = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (data) onEvent(type, JSON.parse(data));
        type = 'message';
        data = '';
      } else if (line.startsWith('event:')) {
        type = line.slice(6).trim();
      } else if (line.startsWith('data:')) {
        data += line.slice(5).trim();
      }
    }
  }
}
