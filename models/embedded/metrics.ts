/**
 * serverStatus's counters, counted as MongoDB counts them: `opcounters` per command (find → query,
 * getMore → getmore, insert → per document, update and delete → per statement, anything else →
 * command), `metrics.queryExecutor` (index keys and documents examined by queries) and
 * `metrics.document.returned` (documents handed out in cursor batches). Plain increments: they sit on
 * every command's path.
 */
import { Long } from 'bson';
import { type Doc } from './values.js';

/** What one query examined: index keys read, documents fetched to be looked at. */
export interface ScanCounts {
  keysExamined: number;
  docsExamined: number;
}

const lengthOf = (v: unknown) => (Array.isArray(v) ? v.length : 0);

export class ServerMetrics {
  private readonly opcounters = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
  private keysExamined = 0;
  private docsExamined = 0;
  private docsReturned = 0;

  /** A command arrived (counted before it runs, failed or not, as MongoDB does). */
  command(name: string, body: Doc) {
    const counters = this.opcounters;
    if (name === 'find') counters.query += 1;
    else if (name === 'getMore') counters.getmore += 1;
    else if (name === 'insert') counters.insert += lengthOf(body.documents);
    else if (name === 'update') counters.update += lengthOf(body.updates);
    else if (name === 'delete') counters.delete += lengthOf(body.deletes);
    else counters.command += 1;
  }

  examined(counts: ScanCounts) {
    this.keysExamined += counts.keysExamined;
    this.docsExamined += counts.docsExamined;
  }

  returned(n: number) {
    this.docsReturned += n;
  }

  /** The serverStatus sections, with MongoDB's field names and int64 values. */
  serverStatus(): Doc {
    const long = Long.fromNumber;
    const counters = this.opcounters;
    return {
      opcounters: {
        insert: long(counters.insert),
        query: long(counters.query),
        update: long(counters.update),
        delete: long(counters.delete),
        getmore: long(counters.getmore),
        command: long(counters.command),
      },
      metrics: {
        document: { returned: long(this.docsReturned) },
        queryExecutor: { scanned: long(this.keysExamined), scannedObjects: long(this.docsExamined) },
      },
    };
  }
}
