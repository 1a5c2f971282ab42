import type { ActorClient, Sent } from '../../actors/runtime/client.js';

/**
 * Sends `perActor` counter `add` messages to each actor: one actor's messages one after another (that
 * is their arrival order, carried in `seq`), different actors in parallel.
 */
export async function sendInOrder(client: ActorClient, ids: string[], perActor: number): Promise<Sent[]> {
  const perId = await Promise.all(
    ids.map(async (id) => {
      const mine: Sent[] = [];
      for (let seq = 0; seq < perActor; seq++) mine.push(await client.send({ actor: { kind: 'counter', id }, ownerId: 'u1', type: 'add', payload: { n: 1, seq } }));
      return mine;
    }),
  );
  return perId.flat();
}
