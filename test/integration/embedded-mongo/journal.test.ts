/**
 * The journal's files on their own: a dbpath holding more records than a function call may take as
 * arguments (the MTG dataset's snapshot holds hundreds of thousands) loads on restart.
 */
import { expect } from 'chai';
import { Journal } from '../../../models/embedded/store/journal.js';
import type { ChangeRecord } from '../../../models/embedded/store/engine.js';
import { tempDir } from '../../support/troupe-mongo-process.js';

describe('embedded mongo: journal files', function () {
  this.timeout(60_000);

  it('loads a snapshot of 300,000 records (more than a spread call can pass)', async function () {
    const dir = await tempDir('troupe-journal');
    try {
      const count = 300_000;
      function* records(): Generator<ChangeRecord> {
        yield { op: 'create', db: 'big', coll: 'docs', options: {} };
        for (let i = 0; i < count; i++) yield { op: 'put', db: 'big', coll: 'docs', doc: { _id: i } };
      }
      const journal = await Journal.start(dir.dir, records());
      await journal.close();
      const loaded = Journal.load(dir.dir);
      expect(loaded).to.have.length(count + 1);
      expect(loaded[count]).to.deep.include({ op: 'put', coll: 'docs' });
    } finally {
      await dir.remove();
    }
  });
});
