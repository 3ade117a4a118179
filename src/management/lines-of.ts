/** A body's lines as `readline` gives a file's: `\r\n`, `\n` or a lone `\r` ends a line, and a last line end makes no empty line. */
export function* linesOf(body: string): Generator<string> {
  let start = 0;
  for (const end of body.matchAll(/\r\n|\n|\r/g)) {
    yield body.slice(start, end.index);
    start = end.index + end[0].length;
  }
  if (start < body.length) yield body.slice(start);
}
