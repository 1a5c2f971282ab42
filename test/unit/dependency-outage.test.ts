/**
 * Which errors mean "Redis or MongoDB is unreachable", checked with errors the real clients raise
 * against a port where nothing listens, and how the gateway answers them.
 */
import { expect } from 'chai';
import { Redis, ReplyError } from 'ioredis';
import mongoose from 'mongoose';
import { dependencyOutageOf } from '../../gateway/dependency-outage.js';
import { toErrorResponse } from '../../gateway/error-response.js';
import { freePort } from '../support/troupe-mongo-process.js';

/** What a command on a Redis client whose server is gone rejects with. */
async function redisError(options: { maxRetriesPerRequest: number; retryStrategy: () => number | null }): Promise<unknown> {
  const redis = new Redis(await freePort(), '127.0.0.1', options);
  redis.on('error', () => undefined);
  try {
    await redis.get('any');
  } catch (error) {
    return error;
  } finally {
    redis.disconnect();
  }
  throw new Error('the command succeeded without a server');
}

describe('dependency outages', () => {
  it('recognises a Redis client that gave up retrying, or whose connection is closed', async () => {
    expect(dependencyOutageOf(await redisError({ maxRetriesPerRequest: 0, retryStrategy: () => 10 }))?.code).to.equal('broker_unavailable');
    expect(dependencyOutageOf(await redisError({ maxRetriesPerRequest: 1, retryStrategy: () => null }))?.code).to.equal('broker_unavailable');
  });

  it('recognises Redis saying "not now" (still loading after a restart), but not a refused command', () => {
    expect(dependencyOutageOf(new ReplyError('LOADING Redis is loading the dataset in memory'))?.code).to.equal('broker_unavailable');
    expect(dependencyOutageOf(new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'))).to.equal(undefined);
  });

  it('recognises MongoDB out of reach (server selection, mongoose buffering)', async () => {
    const port = await freePort();
    const selection = await mongoose
      .createConnection(`mongodb://127.0.0.1:${port}/outage`, { serverSelectionTimeoutMS: 100 })
      .asPromise()
      .catch((error: unknown) => error);
    expect(dependencyOutageOf(selection)?.code).to.equal('store_unavailable');

    const unconnected = mongoose.createConnection();
    const Thing = unconnected.model('Thing', new mongoose.Schema({ name: String }, { bufferTimeoutMS: 50 }));
    const buffered = await Thing.findOne({}).exec().catch((error: unknown) => error);
    expect(dependencyOutageOf(buffered)?.code).to.equal('store_unavailable');
    await unconnected.close();
  });

  it('counts a bare socket failure (the driver writing to a closed connection) as the store\'s, unless it is an HTTP error', () => {
    const epipe = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
    expect(dependencyOutageOf(epipe)?.code).to.equal('store_unavailable');
    expect(dependencyOutageOf(Object.assign(new Error('request aborted'), { code: 'ECONNRESET', status: 400 }))).to.equal(undefined);
  });

  it('looks through causes, and leaves everything else alone', () => {
    expect(dependencyOutageOf(new Error('wrapped', { cause: new ReplyError('MASTERDOWN Link with MASTER is down') }))?.code).to.equal('broker_unavailable');
    expect(dependencyOutageOf(new Error('a bug'))).to.equal(undefined);
    expect(dependencyOutageOf('a string')).to.equal(undefined);
  });

  it('is answered 503 with Retry-After and the common error body', async () => {
    const answer = toErrorResponse(await redisError({ maxRetriesPerRequest: 0, retryStrategy: () => 10 }));
    expect(answer.status).to.equal(503);
    expect(answer.headers['Retry-After']).to.match(/^[1-9]\d*$/);
    expect(answer.body.error).to.include({ code: 'broker_unavailable' });
    expect(answer.body.error.message).to.be.a('string').and.not.include('max retries');
  });
});
