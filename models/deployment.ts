/**
 * The identity of a troupe deployment: a random id created once per MongoDB database. Redis
 * namespaces are bound to it (queues/deployment-binding.ts), so the database is the source of truth
 * for which deployment a process belongs to.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from './model-on.js';

export interface DeploymentRecord {
  /** Always DEPLOYMENT_DOCUMENT_ID: one document per database. */
  _id: string;
  deploymentId: string;
  createdAt: Date;
}

const DEPLOYMENT_DOCUMENT_ID = 'deployment';

const schema = new Schema<DeploymentRecord>(
  {
    _id: { type: String, required: true },
    deploymentId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'troupe_deployment', versionKey: false },
);

export function deploymentRecords(connection: Connection): Model<DeploymentRecord> {
  return modelOn<DeploymentRecord>(connection, 'Deployment', schema);
}

/** This database's deployment id, created on first use. Processes starting at once agree on one id: the upsert only inserts if none exists. */
export async function deploymentIdOf(connection: Connection): Promise<string> {
  const records = deploymentRecords(connection);
  const upsert = () =>
    records
      .findOneAndUpdate(
        { _id: DEPLOYMENT_DOCUMENT_ID },
        { $setOnInsert: { deploymentId: randomUUID(), createdAt: new Date() } },
        { upsert: true, returnDocument: 'after', lean: true },
      )
      .exec();
  let record: DeploymentRecord | null;
  try {
    record = await upsert();
  } catch (error) {
    // Two concurrent upserts of one _id: the loser gets a duplicate key error, and the winner's document now exists.
    if ((error as { code?: unknown }).code !== 11000) throw error;
    record = await upsert();
  }
  return record!.deploymentId;
}
