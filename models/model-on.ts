import type { Connection, Model, Schema } from 'mongoose';

/** The connection's model `name`, compiled from `schema` on first use (mongoose refuses to compile one twice). */
export function modelOn<T>(connection: Connection, name: string, schema: Schema<T>): Model<T> {
  return (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
}
