import { expect } from 'chai';
import { ApiError } from '../../gateway/error-response.js';
import { errorEventOf, frameOf, LastEventId } from '../../gateway/sse.js';

describe('SSE frames (gateway/sse.ts)', () => {
  it('hands koa-sse-stream data as a JSON string, never an object', () => {
    for (const data of [{ a: 1 }, [1, 2], 'text', 3, null, undefined, true]) {
      const frame = frameOf({ event: 'token', id: '1-0', data });
      expect(frame.data).to.be.a('string');
      expect(JSON.parse(frame.data!)).to.deep.equal(data ?? null);
    }
  });

  it('keeps line breaks out of the event and id fields', () => {
    const frame = frameOf({ event: 'bad\nevent: forged', id: '1-0\r\ndata: x', data: {} });
    expect(frame.event).to.equal('bad event: forged');
    expect(frame.id).to.equal('1-0data: x');
    expect(frameOf({ event: 'e', data: 'line1\nline2' }).data).to.equal('"line1\\nline2"');
  });

  it('turns ApiErrors into their error data and hides the message of anything else', () => {
    expect(errorEventOf(new ApiError(429, 'rate_limited', 'slow down', { retryAfterSeconds: 3 }))).to.deep.equal({
      event: 'error',
      data: { code: 'rate_limited', message: 'slow down', details: { retryAfterSeconds: 3 } },
    });
    expect(errorEventOf(new Error('password=hunter2')).data).to.deep.equal({ code: 'internal_server_error', message: 'Internal Server Error', details: {} });
  });

  it('accepts only Redis Stream entry ids as Last-Event-ID', () => {
    expect(LastEventId.safeParse('1700000000000-0').success).to.equal(true);
    for (const bad of ['', '0', 'abc', '1-2-3', '1-0\n', '$', '>', '-', '+']) expect(LastEventId.safeParse(bad).success, bad).to.equal(false);
  });
});
