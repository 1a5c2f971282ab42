/**
 * The run graph's LangGraph checkpointer, kept inside the run actor's state. A turn loads the run's
 * latest checkpoint into memory, runs the graph to its next interrupt (or its end), and hands the
 * new latest checkpoint back to be committed with the actor's state: one fenced MongoDB write, so a
 * zombie turn's checkpoint can never overwrite a newer one, and a run waiting at a gate survives any
 * restart. A turn cut short re-runs from the last committed checkpoint (the last gate).
 */
import { MemorySaver } from '@langchain/langgraph';

type Stored = [checkpoint: Uint8Array, metadata: Uint8Array, parentId: string | undefined];
type StoredWrite = [taskId: string, channel: string, value: Uint8Array, taskPath?: string];

/** A thread's latest checkpoint and its pending writes (the interrupt and resume values), as JSON. */
export interface PortableCheckpoint {
  namespaces: Array<{
    ns: string;
    id: string;
    checkpoint: string;
    metadata: string;
    parent?: string;
    writes: Array<{ key: string; taskId: string; channel: string; value: string; taskPath?: string }>;
  }>;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));
const writesKey = (threadId: string, ns: string, id: string) => JSON.stringify([threadId, ns, id]);

export class RunCheckpointer extends MemorySaver {
  constructor(
    private readonly threadId: string,
    saved: PortableCheckpoint | null,
  ) {
    super();
    if (saved) this.load(saved);
  }

  private load(saved: PortableCheckpoint): void {
    const thread: Record<string, Record<string, Stored>> = Object.create(null);
    for (const entry of saved.namespaces) {
      thread[entry.ns] = Object.assign(Object.create(null) as Record<string, Stored>, {
        [entry.id]: [bytesOf(entry.checkpoint), bytesOf(entry.metadata), entry.parent] as Stored,
      });
      const writes: Record<string, StoredWrite> = Object.create(null);
      for (const w of entry.writes) writes[w.key] = [w.taskId, w.channel, bytesOf(w.value), w.taskPath];
      (this.writes as Record<string, Record<string, StoredWrite>>)[writesKey(this.threadId, entry.ns, entry.id)] = writes;
    }
    (this.storage as Record<string, typeof thread>)[this.threadId] = thread;
  }

  /** The latest checkpoint of each namespace, with its writes; older ones are not needed to go on. */
  latest(): PortableCheckpoint | null {
    const thread = (this.storage as Record<string, Record<string, Record<string, Stored>>>)[this.threadId];
    if (!thread) return null;
    const namespaces: PortableCheckpoint['namespaces'] = [];
    for (const [ns, checkpoints] of Object.entries(thread)) {
      const id = Object.keys(checkpoints).sort().at(-1);
      if (id === undefined) continue;
      const [checkpoint, metadata, parent] = checkpoints[id]!;
      const writes = (this.writes as Record<string, Record<string, StoredWrite>>)[writesKey(this.threadId, ns, id)] ?? {};
      namespaces.push({
        ns,
        id,
        checkpoint: b64(checkpoint),
        metadata: b64(metadata),
        ...(parent === undefined ? {} : { parent }),
        writes: Object.entries(writes).map(([key, [taskId, channel, value, taskPath]]) => ({ key, taskId, channel, value: b64(value), ...(taskPath === undefined ? {} : { taskPath }) })),
      });
    }
    return namespaces.length ? { namespaces } : null;
  }
}
