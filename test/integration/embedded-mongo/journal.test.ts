/**
 * The dbpath's files on their own: collection files and journals holding more documents than a function
 * call may take as arguments (the MTG dataset has hundreds of thousands) load on restart.
 */
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { readCollectionFile, writeCollectionFileSync } from '../../../models/embedded/store/collection-file.js';
import { Engine } from '../../../models/embedded/store/engine.js';
import { encodeRecord, Journal, readRecords, Storage } from '../../../models/embedded/store/journal.js';
import { tempDir } from '../../support/troupe-mongo-process.js';

describe('embedded mongo: journal and collection files', function () {
  this.timeout(60_000);
  const count = 300_000;

  it('a collection file of 300,000 documents (more than a spread call can pass) reads back in order', async function () {
    const dir = await tempDir('troupe-collection-file');
    try {
      const file = path.join(dir.dir, 'c1-0.coll');
      const docs = Array.from({ length: count }, (_, i) => (i % 1000 === 0 ? { _id: i, at: new Date(i) } : { _id: i }));
      const bytes = writeCollectionFileSync(file, docs);
      const loaded = readCollectionFile(file, { count, bytes });
      expect(loaded).to.have.length(count);
      expect(loaded[count - 1]).to.deep.equal({ _id: count - 1 });
      expect(loaded[1000]).to.deep.equal({ _id: 1000, at: new Date(1000) });
      expect(() => readCollectionFile(file, { count: count + 1, bytes })).to.throw(/catalog says 300001/);
    } finally {
      await dir.remove();
    }
  });

  it('records queued before a switch to the next journal go to the previous one; one sync writes both, in order', async function () {
    const dir = await tempDir('troupe-journal-rotate');
    try {
      const journal = new Journal(dir.dir, 1, openSync(path.join(dir.dir, 'journal-1.bson'), 'a'), 0);
      const put = (id: number) => ({ op: 'put' as const, db: 'd', coll: 'c', doc: { _id: id } });
      journal.append(put(1));
      const first = journal.sync();
      journal.append(put(2));
      journal.append(put(3));
      journal.rotate(2);
      journal.append(put(4));
      await Promise.all([first, journal.sync()]);
      const ids = (gen: number) => readRecords(readFileSync(path.join(dir.dir, `journal-${gen}.bson`))).records.map((r) => (r as ReturnType<typeof put>).doc._id);
      expect(ids(1)).to.deep.equal([1, 2, 3]);
      expect(ids(2)).to.deep.equal([4]);
      await journal.close();
    } finally {
      await dir.remove();
    }
  });

  it('a journal of 300,000 records replays on open', async function () {
    const dir = await tempDir('troupe-journal');
    try {
      const records = [encodeRecord({ op: 'create', db: 'big', coll: 'docs', options: {} })];
      for (let i = 0; i < count; i++) records.push(encodeRecord({ op: 'put', db: 'big', coll: 'docs', doc: { _id: i } }));
      writeFileSync(path.join(dir.dir, 'journal-1.bson'), Buffer.concat(records));
      const engine = new Engine();
      const storage = Storage.open(dir.dir, engine);
      expect(storage.report.journalRecords).to.equal(count + 1);
      expect(engine.collection('big', 'docs')?.count).to.equal(count);
      await storage.close();
      const reopened = new Engine();
      const again = Storage.open(dir.dir, reopened);
      expect(again.report.journalRecords).to.equal(0);
      expect(reopened.collection('big', 'docs')?.loaded).to.equal(false);
      expect(reopened.collection('big', 'docs')?.count).to.equal(count);
      expect(reopened.collection('big', 'docs')?.docs.get('n299999')).to.deep.equal({ _id: 299_999 });
      await again.close();
    } finally {
      await dir.remove();
    }
  });
});
