// The service's own API, read as the signed-in person: the session cookie goes with every request
// (same origin), and a change carries the session's CSRF token.

export class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/**
 * `data` of the answer; an ApiError with the error body's code and message on a failure. A body is
 * sent as JSON, or as it is under `contentType` (a file, say).
 */
export async function api(path, { method = 'GET', body, contentType, csrf, signal } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
  if (csrf) headers['x-csrf-token'] = csrf;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined || contentType ? body : JSON.stringify(body),
    credentials: 'same-origin',
    signal,
  });
  if (response.status === 204) return null;
  const payload = await response.json().catch(() => null);
  if (!response.ok) {
    const error = payload && payload.error ? payload.error : {};
    throw new ApiError(response.status, error.code || 'internal', error.message || `HTTP ${response.status}`, response.headers.get('retry-after'));
  }
  return payload.data;
}
