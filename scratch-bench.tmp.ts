import mongoose from 'mongoose';
import { startEmbeddedMongo } from './models/embedded/index.js';
import { ActorClient } from './actors/runtime/client.js';
import { startWorkers } from './actors/runtime/workers.js';
import { echoKind } from './actors/echo/kind.js';
import { RedisNames } from './queues/keys.js';
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const mongo = await startEmbeddedMongo({ port: 0 });
const conn = await mongoose.createConnection(mongo.uri, { dbName: 'sb' }).asPromise();
const names = new RedisNames('sb' + process.pid);
const client = new ActorClient('redis://127.0.0.1:6379', conn, [echoKind], names);
const workers = await startWorkers({ redisUrl: 'redis://127.0.0.1:6379', mongo: conn, kinds: [echoKind], logger: silent, names });
async function run(n: number, c: number) {
  let next = 0; const lat: number[] = []; const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, async (_, i) => { while (next < n) { next++; const s = performance.now(); const sent = await client.send({ actor: { kind: 'echo', id: `a${i}` }, ownerId: 'u', type: 'say', payload: { text: 'hello world x' } }); const t1 = performance.now(); await client.reply(sent.replyStream, { idleTimeoutMs: 10000 }); lat.push(performance.now() - s); sendLat.push(t1 - s); } }));
  const secs = (performance.now() - t0) / 1000; lat.sort((a, b) => a - b); sendLat.sort((a,b)=>a-b);
  console.log({ n, c, rate: Math.round(n / secs), p50: lat[Math.floor(lat.length / 2)].toFixed(1), sendP50: sendLat[Math.floor(sendLat.length/2)].toFixed(1) });
}
const sendLat: number[] = [];

await run(1000, 32); sendLat.length = 0;

await workers.close(); await client.close(); await conn.close(); await mongo.stop();
