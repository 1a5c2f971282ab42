/**
 * Durability for `--dbpath`. The directory holds:
 *
 * - `catalog.bson`: every collection (name, options, index specs, document count) and the file holding
 *   its documents as of the last checkpoint (`c<gen>-<n>.coll`, see collection-file.ts), plus the
 *   generation of the first journal to replay on top;
 * - `journal-<gen>.bson`: committed changes after that checkpoint, BSON records back to back, written
 *   and fdatasync'ed before a write is acknowledged (writes that arrive together share one sync);
 * - `troupe-mongo.lock`: the pid of the process using the directory.
 *
 * At start the catalog is read and every collection is registered unloaded: its file is read on its
 * first use. The journals are replayed on top (loading the collections they touch); a torn last record
 * (a crash mid-write, never acknowledged) is cut off. A checkpoint writes a new file for each collection
 * changed since the previous one (not the others), switches to a new journal, then commits a new
 * catalog by an atomic rename; it runs in the background once the journal has grown, and at a clean
 * stop. A dbpath in the older layout (`snapshot.bson` + `journal.bson`) is read and converted.
 */
import { closeSync, existsSync, fsync, fdatasync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, write, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { deserialize, serialize } from 'bson';
import { takeRawBson } from '../raw-bson.js';
import { normalizeInPlace, type Doc } from '../values.js';
import { Collection, type PersistedCollection } from './collection.js';
import { readCollectionFile, writeCollectionFile } from './collection-file.js';
import { type ChangeRecord, type ChangeSink, type Engine } from './engine.js';
import { type IndexSpec } from './indexes.js';

const CATALOG = 'catalog.bson';
const LOCK = 'troupe-mongo.lock';
const LEGACY_SNAPSHOT = 'snapshot.bson';
const LEGACY_JOURNAL = 'journal.bson';
const CATALOG_FORMAT = 'troupe-embedded-mongo';
const CATALOG_VERSION = 1;
const JOURNAL_FILE = /^journal-(\d+)\.bson$/;
const COLLECTION_FILE = /^c\d+-\d+\.coll$/;
const journalName = (gen: number) => `journal-${gen}.bson`;

const writeAsync = promisify(write);
const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

export interface JournalLogger {
  warn(obj: object, msg?: string): void;
  info?(obj: object, msg?: string): void;
  error?(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

/** Reads records until the end or the first incomplete one; returns them and the length that was valid. */
export function readRecords(buf: Buffer): { records: ChangeRecord[]; validLength: number } {
  const records: ChangeRecord[] = [];
  let offset = 0;
  while (offset + 4 <= buf.length) {
    const size = buf.readInt32LE(offset);
    if (size < 5 || offset + size > buf.length || buf[offset + size - 1] !== 0) break;
    try {
      records.push(normalizeInPlace(deserialize(buf.subarray(offset, offset + size), { promoteValues: false })) as ChangeRecord);
    } catch {
      break;
    }
    offset += size;
  }
  return { records, validLength: offset };
}

function cstring(s: string): Buffer {
  return Buffer.from(`${s}\u0000`, 'utf8');
}

function stringElement(name: string, value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const len = Buffer.allocUnsafe(4);
  len.writeInt32LE(bytes.length + 1, 0);
  return Buffer.concat([Buffer.from([0x02]), cstring(name), len, bytes, Buffer.from([0])]);
}

/** A record as BSON; an inserted document that arrived over the wire is copied, not serialized again. */
export function encodeRecord(record: ChangeRecord): Buffer {
  if (record.op === 'put') {
    const raw = takeRawBson(record.doc);
    if (raw) {
      const parts = [stringElement('op', 'put'), stringElement('db', record.db), stringElement('coll', record.coll), Buffer.from([0x03]), cstring('doc'), raw];
      const length = 4 + parts.reduce((n, p) => n + p.length, 0) + 1;
      const head = Buffer.allocUnsafe(4);
      head.writeInt32LE(length, 0);
      return Buffer.concat([head, ...parts, Buffer.from([0])], length);
    }
  }
  return Buffer.from(serialize(record as unknown as Doc));
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

function fsyncDir(dir: string) {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function unlinkQuietly(file: string) {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

interface Segment {
  gen: number;
  fd: number;
  buffers: Buffer[];
  /** The file was created by this process: its directory entry is fsynced before its first acknowledgement. */
  dirSynced: boolean;
}

/**
 * The append-only journal: records are queued by `append` and written and fdatasync'ed by `sync`,
 * one write for everything queued (group commit). `rotate` starts the next generation's file; what
 * was queued before goes to the previous file, and every write happens in order, so a record in a
 * later file is never durable before the records before it.
 */
export class Journal implements ChangeSink {
  private current: Segment;
  private previous: Segment[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;
  private failure?: Error;
  /** Bytes in the current file (including what it held when opened) and queued for it. */
  bytes: number;
  /** Called after each successful sync. */
  onSynced?: () => void;

  /** `fd`: `journal-<gen>.bson` opened for appending, holding `existingBytes` already. */
  constructor(
    private readonly dir: string,
    gen: number,
    fd: number,
    existingBytes: number,
  ) {
    this.current = { gen, fd, buffers: [], dirSynced: true };
    this.bytes = existingBytes;
  }

  get gen() {
    return this.current.gen;
  }

  append(record: ChangeRecord) {
    const bytes = encodeRecord(record);
    this.current.buffers.push(bytes);
    this.bytes += bytes.length;
  }

  /** Starts `journal-<gen>.bson`; later appends go there. */
  rotate(gen: number) {
    const fd = openSync(path.join(this.dir, journalName(gen)), 'a');
    this.previous.push(this.current);
    this.current = { gen, fd, buffers: [], dirSynced: false };
    this.bytes = 0;
  }

  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.current.buffers.length === 0 && this.current.dirSynced && this.previous.length === 0) return this.inFlight;
    if (!this.next) {
      this.next = this.inFlight.then(async () => {
        this.next = null;
        // Earlier files get nothing more once rotated away from: they are closed once written.
        const done = this.previous.splice(0);
        try {
          for (const segment of [...done, this.current]) {
            const chunk = segment.buffers.length === 1 ? segment.buffers[0] : Buffer.concat(segment.buffers);
            segment.buffers = [];
            if (chunk.length) {
              let written = 0;
              while (written < chunk.length) written += (await writeAsync(segment.fd, chunk, written, chunk.length - written)).bytesWritten;
              await fdatasyncAsync(segment.fd);
            }
            if (!segment.dirSynced) {
              const dirFd = openSync(this.dir, 'r');
              try {
                await fsyncAsync(dirFd);
              } finally {
                closeSync(dirFd);
              }
              segment.dirSynced = true;
            }
            if (done.includes(segment)) closeSync(segment.fd);
          }
        } catch (e) {
          this.failure = e as Error;
          throw e;
        }
        this.onSynced?.();
      });
      this.inFlight = this.next;
    }
    return this.next;
  }

  async close() {
    await this.sync().catch(() => undefined);
    for (const segment of this.previous.splice(0)) closeSync(segment.fd);
    closeSync(this.current.fd);
  }
}

interface CatalogEntry extends PersistedCollection {
  db: string;
  name: string;
  options: Doc;
  indexes: IndexSpec[];
}

interface Catalog {
  format: string;
  version: number;
  /** The first journal generation to replay on top of the collection files. */
  journal: number;
  collections: CatalogEntry[];
}

export interface StorageOptions {
  logger?: JournalLogger;
  /**
   * A checkpoint starts once the journal holds this many bytes and no write has come for
   * `checkpointIdleMs` (at once past 16 times as many). Default 16 MiB.
   */
  checkpointJournalBytes?: number;
  /** Default 2000. */
  checkpointIdleMs?: number;
}

/** What `open` found, for logs and tests. */
export interface OpenReport {
  collections: number;
  journalRecords: number;
  /** Collections the journal replay loaded (the others stay unloaded until used). */
  loaded: number;
  convertedLegacy: boolean;
  droppedBytes: number;
}

/** A dbpath: lock, catalog, collection files and journal; the engine's change sink. */
export class Storage {
  private checkpointing: Promise<void> | null = null;
  private timer?: NodeJS.Timeout;
  private closing = false;
  private closed = false;
  private readonly thresholdBytes: number;
  private readonly idleMs: number;

  private constructor(
    readonly dir: string,
    private readonly engine: Engine,
    readonly journal: Journal,
    private readonly logger: JournalLogger | undefined,
    options: StorageOptions,
    readonly report: OpenReport,
  ) {
    this.thresholdBytes = options.checkpointJournalBytes ?? 16 * 1024 * 1024;
    this.idleMs = options.checkpointIdleMs ?? 2000;
    journal.onSynced = () => this.afterSync();
    // After a crash the journal may already be long; a converted dbpath is written in the new layout soon.
    if (report.convertedLegacy) this.scheduleCheckpoint();
    else this.afterSync();
  }

  /** Takes the directory's lock, registers its collections (unloaded) in `engine`, replays the journal. */
  static open(dir: string, engine: Engine, options: StorageOptions = {}): Storage {
    const logger = options.logger;
    mkdirSync(dir, { recursive: true });
    lockDirectory(dir);
    const report: OpenReport = { collections: 0, journalRecords: 0, loaded: 0, convertedLegacy: false, droppedBytes: 0 };
    const names = readdirSync(dir);
    const catalogPath = path.join(dir, CATALOG);
    let firstGen = 1;
    if (existsSync(catalogPath)) {
      const catalog = readCatalog(catalogPath);
      firstGen = catalog.journal;
      for (const entry of catalog.collections) {
        // A missing or cut file fails the start, not some later query.
        if (entry.file !== null) {
          const file = path.join(dir, entry.file);
          const size = existsSync(file) ? statSync(file).size : -1;
          if (size !== entry.bytes) throw new Error(`dbpath ${dir}: ${entry.file} (${entry.db}.${entry.name}) ${size < 0 ? 'is missing' : `holds ${size} bytes, the catalog says ${entry.bytes}`}`);
        }
        engine.adopt(unloadedCollection(dir, entry, logger));
      }
      // A crash after a conversion's catalog was committed can leave the old layout's files behind.
      for (const legacy of [LEGACY_SNAPSHOT, LEGACY_JOURNAL]) if (names.includes(legacy)) unlinkQuietly(path.join(dir, legacy));
    } else {
      for (const legacy of [LEGACY_SNAPSHOT, LEGACY_JOURNAL]) {
        if (!names.includes(legacy)) continue;
        const file = path.join(dir, legacy);
        const buf = readFileSync(file);
        const read = readRecords(buf);
        if (read.validLength < buf.length) warnTorn(logger, file, read.validLength, buf.length);
        for (const record of read.records) engine.replay(record);
        report.convertedLegacy = true;
      }
    }

    // Journals older than the catalog's were checkpointed (a crash came before they were deleted).
    const journals = names
      .map((name) => JOURNAL_FILE.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const gen of journals) if (gen < firstGen) unlinkQuietly(path.join(dir, journalName(gen)));
    const replay = journals.filter((gen) => gen >= firstGen);
    let tornAt: number | undefined;
    let lastBytes = 0;
    for (const gen of replay) {
      const file = path.join(dir, journalName(gen));
      if (tornAt !== undefined) {
        // Written only after the torn file's last write completed: it cannot hold an acknowledged write.
        if (statSync(file).size > 0) logger?.warn({ file }, 'journal follows a torn one; dropping it');
        unlinkQuietly(file);
        continue;
      }
      const buf = readFileSync(file);
      const read = readRecords(buf);
      for (const record of read.records) engine.replay(record);
      report.journalRecords += read.records.length;
      lastBytes = read.validLength;
      if (read.validLength < buf.length) {
        warnTorn(logger, file, read.validLength, buf.length);
        report.droppedBytes += buf.length - read.validLength;
        const fd = openSync(file, 'r+');
        try {
          ftruncateSync(fd, read.validLength);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        tornAt = gen;
      }
    }
    const gen = tornAt ?? replay.at(-1) ?? firstGen;
    const journalFile = path.join(dir, journalName(gen));
    const created = !existsSync(journalFile);
    const fd = openSync(journalFile, 'a');
    if (created) fsyncDir(dir);
    const journal = new Journal(dir, gen, fd, created ? 0 : lastBytes);
    for (const coll of engine.collections()) {
      report.collections += 1;
      if (coll.loaded) report.loaded += 1;
    }
    const storage = new Storage(dir, engine, journal, logger, options, report);
    engine.attach(journal);
    return storage;
  }

  private afterSync() {
    if (this.closing || this.checkpointing || this.journal.bytes < this.thresholdBytes) return;
    if (this.journal.bytes >= 16 * this.thresholdBytes) {
      clearTimeout(this.timer);
      this.runInBackground();
      return;
    }
    this.scheduleCheckpoint();
  }

  /** A checkpoint once no write has come for `idleMs` (each call starts the wait again). */
  private scheduleCheckpoint() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runInBackground(), this.idleMs);
    this.timer.unref();
  }

  private runInBackground() {
    if (this.closing) return;
    this.checkpoint().catch((err) => this.logger?.error?.({ err }, 'embedded mongo: checkpoint failed; the journal keeps every change'));
  }

  /** Something to checkpoint: journaled changes, or a collection never written to a file. */
  needsCheckpoint(): boolean {
    if (this.journal.bytes > 0) return true;
    for (const coll of this.engine.collections()) if (coll.dirty || !coll.persisted) return true;
    return false;
  }

  /**
   * Writes a file for every collection changed since the last checkpoint, switches to a new journal and
   * commits a new catalog. Writes go on meanwhile (into the new journal); the files are written a chunk
   * at a time. One checkpoint runs at a time; a call during one waits for it and then runs another.
   */
  checkpoint(): Promise<void> {
    if (this.closed) return Promise.resolve();
    clearTimeout(this.timer);
    const run = (this.checkpointing ?? Promise.resolve()).catch(() => undefined).then(() => this.runCheckpoint());
    const tracked = run.finally(() => {
      if (this.checkpointing === tracked) this.checkpointing = null;
    });
    this.checkpointing = tracked;
    return run;
  }

  private async runCheckpoint(): Promise<void> {
    const gen = this.journal.gen + 1;
    // The state as of now: documents are never changed in place, so the arrays taken here stay as they are.
    const entries: Array<CatalogEntry | { coll: Collection; docs: Doc[]; entry: Omit<CatalogEntry, keyof PersistedCollection> }> = [];
    const changed: Collection[] = [];
    for (const coll of this.engine.collections()) {
      const meta = { db: coll.db, name: coll.name, options: coll.options, indexes: coll.indexSpecs() };
      if (!coll.dirty && coll.persisted) {
        entries.push({ ...meta, ...coll.persisted });
        continue;
      }
      entries.push({ coll, docs: [...coll.docs.values()], entry: meta });
      coll.dirty = false;
      changed.push(coll);
    }
    this.journal.rotate(gen);
    const started = performance.now();
    try {
      const catalog: Catalog = { format: CATALOG_FORMAT, version: CATALOG_VERSION, journal: gen, collections: [] };
      const persisted = new Map<Collection, PersistedCollection>();
      let n = 0;
      for (const item of entries) {
        if (!('coll' in item)) {
          catalog.collections.push(item);
          continue;
        }
        let written: PersistedCollection = { file: null, count: 0, bytes: 0 };
        if (item.docs.length) {
          const file = `c${gen}-${n++}.coll`;
          written = { file, count: item.docs.length, bytes: await writeCollectionFile(path.join(this.dir, file), item.docs) };
        }
        persisted.set(item.coll, written);
        catalog.collections.push({ ...item.entry, ...written });
      }
      // The previous journal's last writes land before the catalog stops naming it.
      await this.journal.sync();
      writeCatalog(this.dir, catalog);
      for (const [coll, written] of persisted) coll.persisted = written;
      const referenced = new Set(catalog.collections.map((c) => c.file));
      for (const name of readdirSync(this.dir)) {
        const journal = JOURNAL_FILE.exec(name);
        if ((journal && Number(journal[1]) < gen) || (COLLECTION_FILE.test(name) && !referenced.has(name)) || name === LEGACY_SNAPSHOT || name === LEGACY_JOURNAL) {
          unlinkQuietly(path.join(this.dir, name));
        }
      }
      this.logger?.info?.({ collections: changed.length, ms: Math.round(performance.now() - started) }, 'embedded mongo: checkpoint written');
    } catch (e) {
      // Not committed: the journals still hold every change; the next checkpoint writes these again.
      for (const coll of changed) coll.dirty = true;
      throw e;
    }
  }

  /** Waits for a running checkpoint, checkpoints what the journal holds, closes the journal and unlocks. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    let failed = false;
    await this.checkpointing?.catch(() => undefined);
    if (this.needsCheckpoint()) {
      await this.checkpoint().catch((err) => {
        failed = true;
        this.logger?.error?.({ err }, 'embedded mongo: checkpoint at stop failed; the journal keeps every change');
      });
    }
    this.closed = true;
    await this.journal.close();
    unlinkQuietly(path.join(this.dir, LOCK));
    if (failed) throw new Error(`the checkpoint at stop failed (dbpath ${this.dir}); the journal keeps every change`);
  }
}

function warnTorn(logger: JournalLogger | undefined, file: string, valid: number, total: number) {
  logger?.warn({ file, validBytes: valid, droppedBytes: total - valid }, 'journal had an incomplete last record (crash during a write that was never acknowledged); dropping it');
}

function lockDirectory(dir: string) {
  const lock = path.join(dir, LOCK);
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, 'utf8'));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new Error(`dbpath ${dir} is in use by process ${pid}; stop it or choose another --dbpath`);
    }
  }
  writeFileSync(lock, String(process.pid));
}

function readCatalog(file: string): Catalog {
  const catalog = normalizeInPlace(deserialize(readFileSync(file), { promoteValues: false })) as unknown as Catalog;
  if (catalog.format !== CATALOG_FORMAT || catalog.version !== CATALOG_VERSION || !Array.isArray(catalog.collections)) {
    throw new Error(`${file} is not a catalog this server can read (format ${String(catalog.format)} version ${String(catalog.version)})`);
  }
  return catalog;
}

/** Atomically: written to a temporary file, fsynced, renamed over the old one, directory fsynced. */
function writeCatalog(dir: string, catalog: Catalog) {
  const tmp = path.join(dir, `${CATALOG}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    const bytes = serialize(catalog as unknown as Doc);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path.join(dir, CATALOG));
  fsyncDir(dir);
}

function unloadedCollection(dir: string, entry: CatalogEntry, logger: JournalLogger | undefined): Collection {
  const { file, count, bytes } = entry;
  const coll = Collection.unloaded(entry.db, entry.name, entry.options ?? {}, entry.indexes ?? [], count, () => {
    if (file === null) return [];
    const started = performance.now();
    try {
      const docs = readCollectionFile(path.join(dir, file), { count, bytes });
      const ms = Math.round(performance.now() - started);
      // Worth a line when a query waited for it.
      (ms >= 100 ? logger?.info : logger?.debug)?.call(logger, { ns: `${entry.db}.${entry.name}`, documents: count, ms }, 'embedded mongo: collection loaded');
      return docs;
    } catch (err) {
      logger?.error?.({ err, ns: `${entry.db}.${entry.name}`, file }, 'embedded mongo: could not load a collection file');
      throw err;
    }
  });
  coll.persisted = { file, count, bytes };
  return coll;
}
