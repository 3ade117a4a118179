/**
 * An `Authorization` header in the Bearer scheme is an API key's: the request is the key's, valid
 * or not, and a session cookie beside it is not read. Any other scheme (a proxy's Basic
 * credentials, which a browser repeats on every request) leaves the cookie to speak.
 */
export function usesBearer(header: string | undefined): boolean {
  return header !== undefined && /^\s*Bearer(\s|$)/i.test(header);
}

/** The key of a well-formed `Bearer <key>` header; undefined for anything else. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
