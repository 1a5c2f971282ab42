/** A troupe user: the owner of actors (`ownerId` = the user's id) and of API keys. */
import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { modelOn } from './model-on.js';

/** What a user may do beyond using their own actors; `admin` opens the queue dashboard (/admin/queues). */
export const USER_ROLES = ['admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface UserRecord {
  _id: Types.ObjectId;
  /** Unique, chosen by the operator (`troupe users create NAME`). */
  name: string;
  createdAt: Date;
  /** Set when the user is revoked: none of their keys authenticate any more. */
  revokedAt?: Date;
  /** Absent on users created before roles existed: read it as `[]`. */
  roles?: UserRole[];
}

const schema = new Schema<UserRecord>(
  {
    name: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
    revokedAt: { type: Date },
    roles: { type: [{ type: String, enum: USER_ROLES }] },
  },
  { collection: 'users', versionKey: false },
);
schema.index({ name: 1 }, { unique: true });

export function userRecords(connection: Connection): Model<UserRecord> {
  return modelOn<UserRecord>(connection, 'User', schema);
}
