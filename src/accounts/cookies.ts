/** The cookies of a request, by name (the first of a repeated name wins). */
export function readCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // a value that is not percent-encoding is no value of ours
    }
  }
  return out;
}

/** A session cookie: HttpOnly, SameSite=Lax, Secure when the service is reached over HTTPS. */
export function sessionCookie(name: string, value: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  return [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${options.maxAgeSeconds}`, ...(options.secure ? ['Secure'] : [])].join('; ');
}
