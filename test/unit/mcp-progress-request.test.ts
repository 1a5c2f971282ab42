import { expect } from 'chai';
import { asksForProgress } from '../../gateway/mcp/streamable-http.js';

describe('asksForProgress (stateless MCP: JSON answer unless progress is asked for)', function () {
  it('finds a progress token in a single request or in any message of a batch', function () {
    const call = (meta?: object) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {}, ...(meta ? { _meta: meta } : {}) } });
    expect(asksForProgress(call())).to.equal(false);
    expect(asksForProgress(call({ progressToken: 7 }))).to.equal(true);
    expect(asksForProgress(call({ progressToken: 'a' }))).to.equal(true);
    expect(asksForProgress([call(), call({ progressToken: 0 })])).to.equal(true);
    expect(asksForProgress([call(), { jsonrpc: '2.0', method: 'notifications/initialized' }])).to.equal(false);
    for (const odd of [null, 'text', 42, [null], { params: null }]) expect(asksForProgress(odd)).to.equal(false);
  });
});
