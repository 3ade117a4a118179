import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatEntry, prettyLogStream } from './log-stream.ts';

describe('server logs for a person at a terminal', () => {
  test('one readable line per entry: time, level, message, request, fields; errors with their stack', () => {
    const time = Date.UTC(2026, 10, 23, 9, 5, 7);
    assert.equal(
      formatEntry({ level: 30, time, pid: 1, hostname: 'h', msg: 'request completed', req: { method: 'GET', url: '/api/v1/projects' }, res: { statusCode: 200 }, responseTime: 3.14159, reqId: 'req-1' }),
      '09:05:07 INFO  request completed GET /api/v1/projects 200 3.1ms reqId=req-1',
    );
    assert.equal(formatEntry({ level: 50, time, msg: 'boom', err: { message: 'x', stack: 'Error: x\n    at y' } }), '09:05:07 ERROR boom\n  Error: x\n    at y');
    const written: string[] = [];
    const stream = prettyLogStream({ write: (t: string) => written.push(t) });
    stream.write(JSON.stringify({ level: 40, time, msg: 'careful' }));
    stream.write('not json\n');
    assert.deepEqual(written, ['09:05:07 WARN  careful\n', 'not json\n']);
  });
});
