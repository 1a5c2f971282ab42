/**
 * The MTG dataset loaded without the wire (scripts/load-mtg-dataset.ts: `troupe start` and `troupe seed
 * mtg` with the embedded server in their own process) stores exactly what seedMtg over the wire stores.
 */
import { expect } from 'chai';
import { BSON } from 'mongodb';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../../models/embedded/index.js';
import { mtgModels, MTG_COLLECTIONS, seedMtg } from '../../../models/mtg/seed.js';
import { seedMtgFast } from '../../../scripts/load-mtg-dataset.js';
import { skipUnlessEmbedded } from '../../support/mongo-target.js';

describe('embedded mongo: the MTG dataset loaded from the same process', function () {
  this.timeout(180_000);
  let server: EmbeddedMongo;
  const connections: mongoose.Connection[] = [];

  before(async function () {
    skipUnlessEmbedded(this, 'inserting without the wire needs the embedded server in this process');
    server = await startEmbeddedMongo({ port: 0 });
  });
  after(async function () {
    for (const connection of connections) await connection.close();
    await server?.stop();
  });

  async function connect(dbName: string) {
    const connection = await mongoose.createConnection(server.uri, { dbName }).asPromise();
    connections.push(connection);
    return connection;
  }

  it('stores every document exactly as a load over the wire does, and puts the models back', async function () {
    const [wire, local] = await Promise.all([connect('mtg_over_the_wire'), connect('mtg_in_process')]);
    const overTheWire = await seedMtg(wire);
    const inProcess = await seedMtgFast(local);
    expect(inProcess.status).to.equal('loaded');
    expect(inProcess.counts).to.deep.equal(overTheWire.counts);
    for (const model of Object.values(mtgModels(local))) expect(Object.hasOwn(model, 'insertMany'), `${model.modelName}.insertMany put back`).to.equal(false);

    for (const name of MTG_COLLECTIONS) {
      const read = (connection: mongoose.Connection) =>
        connection.db!.collection(`mtg_${name}`).find({}, { sort: { _id: 1 }, promoteValues: false, promoteLongs: false }).toArray();
      const [expected, actual] = await Promise.all([read(wire), read(local)]);
      expect(actual.length, name).to.equal(expected.length);
      for (let i = 0; i < expected.length; i++) {
        const [a, b] = [BSON.EJSON.stringify(actual[i], { relaxed: false }), BSON.EJSON.stringify(expected[i], { relaxed: false })];
        if (a !== b) expect(a, `${name} #${i}`).to.equal(b);
      }
    }
    expect((await seedMtgFast(local)).status, 'a second run finds the marker').to.equal('already-loaded');
  });
});
