/**
 * Records that a bundled dataset was loaded completely. It is written last, so a load that stopped
 * half-way (a crash, Ctrl-C) leaves data without a marker, and the next seed knows to start over.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface DatasetMarker {
  /** The dataset's name, e.g. "mtg". */
  _id: string;
  /** The newest day the dataset covers (YYYY-MM-DD): time windows are measured back from it. */
  as_of: string;
  /** sha256 of the dataset's files: a different one means the shipped dataset changed. */
  content_hash: string;
  /** The shape of the documents built from those files (seed's MTG_DOCUMENTS_VERSION); absent in markers before version 2. */
  documents_version?: number;
  /** Documents loaded, per collection. */
  counts: Record<string, number>;
  loaded_at: Date;
  /** Additions applied since the load (tournament-additions.ts); absent before the first. */
  revision?: number;
  updated_at?: Date;
}

const schema = new Schema<DatasetMarker>(
  {
    _id: { type: String, required: true },
    as_of: { type: String, required: true },
    content_hash: { type: String, required: true },
    documents_version: { type: Number },
    counts: { type: Schema.Types.Mixed, required: true },
    loaded_at: { type: Date, required: true },
    revision: { type: Number },
    updated_at: { type: Date },
  },
  { collection: 'datasets', versionKey: false, minimize: false },
);

export function datasetMarkers(connection: Connection): Model<DatasetMarker> {
  return modelOn<DatasetMarker>(connection, 'DatasetMarker', schema);
}
