import { expect } from 'chai';
import { JsonResponseTransport } from '../../gateway/mcp/json-response-transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const extra = { authInfo: { token: '', clientId: 'u1', scopes: [] }, requestInfo: { headers: {} } };
const request = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

describe('JsonResponseTransport (gateway/mcp/json-response-transport.ts)', function () {
  it('answers once every request of the POST has its response, in the order of the requests; notifications go nowhere', async function () {
    const transport = new JsonResponseTransport();
    const heard: JSONRPCMessage[] = [];
    transport.onmessage = (message) => heard.push(message);
    let settled = false;
    const answered = transport.deliver([request(1), { jsonrpc: '2.0', method: 'notifications/initialized' }, request(2)], extra).then((r) => ((settled = true), r));
    expect(heard).to.have.length(3);
    await transport.send({ jsonrpc: '2.0', id: 2, result: { second: true } });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    await Promise.resolve();
    expect(settled, 'one request still unanswered').to.equal(false);
    await transport.send({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } });
    expect((await answered).map((r) => (r as { id: number }).id)).to.deep.equal([1, 2]);
  });

  it('answers a body of notifications at once with nothing, and refuses a response to a request it never got', async function () {
    const transport = new JsonResponseTransport();
    expect(await transport.deliver([{ jsonrpc: '2.0', method: 'notifications/initialized' }], extra)).to.deep.equal([]);
    const error = await transport.send({ jsonrpc: '2.0', id: 5, result: {} }).then(() => undefined, (e: Error) => e);
    expect(error?.message).to.match(/request ID: 5/);
  });

  it('settles with no answers when the server lets go before answering (the client left), and tells the server once', async function () {
    const transport = new JsonResponseTransport();
    let closed = 0;
    transport.onclose = () => (closed += 1);
    const answered = transport.deliver([request(1)], extra);
    await transport.close();
    await transport.close();
    expect(await answered).to.deep.equal([]);
    expect(closed).to.equal(1);
  });
});
