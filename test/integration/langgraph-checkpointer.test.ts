/**
 * The LangGraph MongoDB checkpointer (which brings its own mongodb 6.x driver) against the embedded
 * server: checkpoints, pending writes, history listing, TTL setup and thread deletion.
 */
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { MongoDBSaver } from '@langchain/langgraph-checkpoint-mongodb';
import { emptyCheckpoint, type Checkpoint } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';

// The checkpointer must be handed a client from its own driver copy, not the project's mongodb 7.
const checkpointerRequire = createRequire(createRequire(import.meta.url).resolve('@langchain/langgraph-checkpoint-mongodb'));
const { MongoClient } = checkpointerRequire('mongodb') as typeof import('mongodb');

describe('LangGraph MongoDBSaver on the embedded server', () => {
  let server: EmbeddedMongo;
  let client: InstanceType<typeof MongoClient>;
  let saver: MongoDBSaver;
  const dbName = `checkpointer_${process.pid}`;

  before(async () => {
    server = await startEmbeddedMongo({ port: 0 });
    client = new MongoClient(server.uri);
    await client.connect();
    saver = new MongoDBSaver({ client: client as never, dbName, enableTimestamps: true, ttl: 3600 });
    await saver.setup();
  });

  after(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
    await server.stop();
  });

  const checkpoint = (id: string, value: number): Checkpoint => ({
    ...emptyCheckpoint(),
    id,
    channel_values: { count: value, messages: ['hi', { nested: value }] },
    channel_versions: { count: value },
  });

  it('stores a checkpoint and reads it back as the latest one', async () => {
    const config = { configurable: { thread_id: 't1', checkpoint_ns: '' } };
    const saved = await saver.put(config, checkpoint('1ef0000000000001', 1), { source: 'input', step: 0, parents: {} });
    await saver.put(saved, checkpoint('1ef0000000000002', 2), { source: 'loop', step: 1, parents: {} });
    const tuple = await saver.getTuple(config);
    expect(tuple?.checkpoint.id).to.equal('1ef0000000000002');
    expect(tuple?.checkpoint.channel_values).to.deep.equal({ count: 2, messages: ['hi', { nested: 2 }] });
    expect(tuple?.metadata?.step).to.equal(1);
    expect(tuple?.parentConfig?.configurable?.checkpoint_id).to.equal('1ef0000000000001');
  });

  it('keeps pending writes with their checkpoint', async () => {
    const config = { configurable: { thread_id: 't2', checkpoint_ns: '' } };
    const saved = await saver.put(config, checkpoint('1ef0000000000010', 5), { source: 'loop', step: 3, parents: {} });
    await saver.putWrites(saved, [['count', 6], ['messages', 'pending']], 'task-1');
    const tuple = await saver.getTuple(saved);
    expect(tuple?.pendingWrites).to.deep.equal([
      ['task-1', 'count', 6],
      ['task-1', 'messages', 'pending'],
    ]);
  });

  it('lists history newest first, with limit and metadata filter, and deletes a thread', async () => {
    const config = { configurable: { thread_id: 't3', checkpoint_ns: '' } };
    let at: RunnableConfig = config;
    for (let i = 1; i <= 4; i++) at = await saver.put(at, checkpoint(`1ef00000000001${i}0`, i), { source: 'loop', step: i, parents: {} });
    const all = [];
    for await (const t of saver.list(config)) all.push(t.checkpoint.id);
    expect(all).to.deep.equal(['1ef0000000000140', '1ef0000000000130', '1ef0000000000120', '1ef0000000000110']);
    const limited = [];
    for await (const t of saver.list(config, { limit: 2 })) limited.push(t.checkpoint.id);
    expect(limited).to.have.length(2);
    const filtered = [];
    for await (const t of saver.list(config, { filter: { step: 3 } })) filtered.push(t.checkpoint.id);
    expect(filtered).to.deep.equal(['1ef0000000000130']);
    await saver.deleteThread('t3');
    expect(await saver.getTuple(config)).to.equal(undefined);
  });
});
