/**
 * Durability for `--dbpath`: an append-only journal of committed changes (BSON records back to back),
 * written and fdatasync'ed before a write is acknowledged. Writes that arrive together share one sync
 * (group commit). At start the snapshot and the journal are replayed, a torn tail from a crash is cut
 * off, and the state is compacted into a new snapshot with an empty journal.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync, ftruncateSync, unlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { deserialize, serialize } from 'bson';
import { normalize, type Doc } from '../values.js';
import { type ChangeRecord, type ChangeSink } from './engine.js';

const SNAPSHOT = 'snapshot.bson';
const JOURNAL = 'journal.bson';
const LOCK = 'troupe-mongo.lock';

export interface JournalLogger {
  warn(obj: object, msg?: string): void;
}

/** Reads records until the end or the first incomplete one; returns them and the length that was valid. */
function readRecords(buf: Buffer): { records: ChangeRecord[]; validLength: number } {
  const records: ChangeRecord[] = [];
  let offset = 0;
  while (offset + 4 <= buf.length) {
    const size = buf.readInt32LE(offset);
    if (size < 5 || offset + size > buf.length || buf[offset + size - 1] !== 0) break;
    try {
      records.push(normalize(deserialize(buf.subarray(offset, offset + size), { promoteValues: false })) as ChangeRecord);
    } catch {
      break;
    }
    offset += size;
  }
  return { records, validLength: offset };
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process nobody has reaped yet (a zombie) still answers signal 0 but holds nothing.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

export class Journal implements ChangeSink {
  private queue: Buffer[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;
  private failure?: Error;

  private constructor(
    private readonly dir: string,
    private readonly file: FileHandle,
  ) {}

  /** Takes the directory's lock and returns what it holds, oldest first (snapshot, then journal). */
  static load(dir: string, logger?: JournalLogger): ChangeRecord[] {
    mkdirSync(dir, { recursive: true });
    const lock = path.join(dir, LOCK);
    if (existsSync(lock)) {
      const pid = Number(readFileSync(lock, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new Error(`dbpath ${dir} is in use by process ${pid}; stop it or choose another --dbpath`);
      }
    }
    writeFileSync(lock, String(process.pid));
    const records: ChangeRecord[] = [];
    for (const name of [SNAPSHOT, JOURNAL]) {
      const file = path.join(dir, name);
      if (!existsSync(file)) continue;
      const buf = readFileSync(file);
      const read = readRecords(buf);
      if (read.validLength < buf.length) {
        logger?.warn({ file, validBytes: read.validLength, droppedBytes: buf.length - read.validLength }, 'journal had an incomplete last record (crash during a write that was never acknowledged); dropping it');
      }
      // Not push(...read.records): a large dataset has more records than a call may take arguments.
      for (const record of read.records) records.push(record);
    }
    return records;
  }

  /** Writes `state` as the new snapshot (atomically, via rename) and starts an empty journal. */
  static async start(dir: string, state: Iterable<ChangeRecord>): Promise<Journal> {
    const tmp = path.join(dir, `${SNAPSHOT}.tmp`);
    const fd = openSync(tmp, 'w');
    try {
      for (const record of state) writeSync(fd, serialize(record as unknown as Doc));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path.join(dir, SNAPSHOT));
    const journalPath = path.join(dir, JOURNAL);
    const jfd = openSync(journalPath, 'a');
    ftruncateSync(jfd, 0);
    fsyncSync(jfd);
    closeSync(jfd);
    const dirFd = openSync(dir, 'r');
    fsyncSync(dirFd);
    closeSync(dirFd);
    return new Journal(dir, await open(journalPath, 'a'));
  }

  append(record: ChangeRecord) {
    this.queue.push(Buffer.from(serialize(record as unknown as Doc)));
  }

  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.queue.length === 0) return this.inFlight;
    if (!this.next) {
      this.next = this.inFlight.then(async () => {
        const chunk = Buffer.concat(this.queue.splice(0));
        this.next = null;
        try {
          await this.file.write(chunk);
          await this.file.datasync();
        } catch (e) {
          this.failure = e as Error;
          throw e;
        }
      });
      this.inFlight = this.next;
    }
    return this.next;
  }

  async close() {
    await this.sync().catch(() => undefined);
    await this.file.close();
    try {
      unlinkSync(path.join(this.dir, LOCK));
    } catch {
      // already gone
    }
  }
}
