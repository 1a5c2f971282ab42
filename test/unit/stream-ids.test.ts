import { expect } from 'chai';
import { compareIds } from '../../queues/reply-reader.js';

describe('compareIds (stream entry ids)', function () {
  it('orders by milliseconds, then by sequence, reading a bare id as sequence 0', function () {
    const sign = (a: string, b: string) => Math.sign(compareIds(a, b));
    expect(sign('1-0', '2-0')).to.equal(-1);
    expect(sign('5-10', '5-9')).to.equal(1);
    expect(sign('5-1', '5-1')).to.equal(0);
    expect(sign('0', '1-0')).to.equal(-1);
    expect(sign('7', '7-0')).to.equal(0);
    expect(sign('7-1', '7')).to.equal(1);
    expect(sign('1732500000000-3', '1732499999999-99')).to.equal(1);
  });
});
