import { expect } from 'chai';
import { pino } from 'pino';
import { ShutdownSequence } from '../../scripts/shutdown-sequence.js';

describe('ShutdownSequence', () => {
  const logger = pino({ level: 'silent' });

  it('stops steps in reverse order of registration', async () => {
    const stopped: string[] = [];
    const sequence = new ShutdownSequence();
    for (const name of ['redis', 'mongo', 'http']) {
      sequence.add(name, async () => {
        stopped.push(name);
      });
    }
    expect(await sequence.run(logger)).to.equal(true);
    expect(stopped).to.deep.equal(['http', 'mongo', 'redis']);
  });

  it('runs the remaining steps after a failure and reports it', async () => {
    const stopped: string[] = [];
    const sequence = new ShutdownSequence();
    sequence.add('redis', async () => {
      stopped.push('redis');
    });
    sequence.add('mongo', async () => {
      throw new Error('boom');
    });
    expect(await sequence.run(logger)).to.equal(false);
    expect(stopped).to.deep.equal(['redis']);
  });

  it('runs each step once', async () => {
    let calls = 0;
    const sequence = new ShutdownSequence();
    sequence.add('once', async () => {
      calls++;
    });
    await sequence.run(logger);
    await sequence.run(logger);
    expect(calls).to.equal(1);
  });
});
