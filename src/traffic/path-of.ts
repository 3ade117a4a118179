import { cleanText } from './clean-text.ts';
import { MAX_PATH_BYTES } from './traffic-limits.ts';

/**
 * The page of a request target or URL: its path without query or fragment, '/' when there is none,
 * cleaned for storage (no NUL, no lone surrogate) and cut to MAX_PATH_BYTES of UTF-8 on a character
 * boundary. Always starts with `/`.
 */
export function pathOf(target: string | undefined): string {
  if (!target) return '/';
  let path = target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      return '/';
    }
  }
  path = cleanText(path.split(/[?#]/, 1)[0] ?? '');
  if (!path.startsWith('/')) path = `/${path}`;
  if (path.length > MAX_PATH_BYTES / 3 && Buffer.byteLength(path) > MAX_PATH_BYTES) {
    let cut = '';
    let bytes = 0;
    for (const char of path) {
      bytes += Buffer.byteLength(char);
      if (bytes > MAX_PATH_BYTES) break;
      cut += char;
    }
    path = cut;
  }
  return path;
}
