import { expect } from 'chai';
import { EJSON } from 'bson';
import mongoose, { type Connection } from 'mongoose';
import { ApiError } from '../../gateway/error-response.js';
import { sha256, UserDirectory } from '../../gateway/users.js';
import { mongoTarget, uniqueDbName, type MongoTarget } from '../support/mongo-target.js';

const KEY_FORMAT = /^trp_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/;

async function expectApiError(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).status, (error as ApiError).message).to.equal(status);
    expect((error as ApiError).code).to.equal(code);
    return error as ApiError;
  }
  expect.fail(`expected ApiError ${status} ${code}`);
}

/** Every document of every collection of the database, as one string (to look for leaked secrets). */
async function dumpDatabase(connection: Connection): Promise<string> {
  const db = connection.db!;
  const parts: string[] = [];
  for (const { name } of await db.listCollections().toArray()) {
    parts.push(EJSON.stringify(await db.collection(name).find({}).toArray()));
  }
  return parts.join('\n');
}

describe('UserDirectory (users, API keys, login tokens in MongoDB)', function () {
  this.timeout(30_000);
  let target: MongoTarget;
  const connections: Connection[] = [];

  /** A directory on a database of its own, so each test starts empty. */
  async function freshDirectory(options?: { loginTokenTtlMs?: number }): Promise<{ users: UserDirectory; connection: Connection }> {
    const connection = await mongoose.createConnection(target.uri, { dbName: uniqueDbName('users') }).asPromise();
    connections.push(connection);
    return { users: await UserDirectory.open(connection, options), connection };
  }

  before(async () => {
    target = await mongoTarget();
  });

  after(async () => {
    for (const connection of connections.splice(0)) {
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
    }
    await target?.stop();
  });

  it('creates a user with a key that authenticates, and stores only its hash', async () => {
    const { users, connection } = await freshDirectory();
    const { user, key, prefix } = await users.createUser('alice');
    expect(key).to.match(KEY_FORMAT);
    expect(key.startsWith(`${prefix}_`)).to.equal(true);
    expect(user.name).to.equal('alice');
    expect(await users.authenticate(key)).to.deep.equal(user);

    const dump = await dumpDatabase(connection);
    const secret = key.slice(prefix.length + 1);
    expect(dump).to.not.include(key);
    expect(dump).to.not.include(secret);
    expect(dump).to.include(sha256(key));
    expect(dump).to.include(prefix);
  });

  it('refuses a taken name (409) and malformed names (400)', async () => {
    const { users } = await freshDirectory();
    await users.createUser('bob');
    await expectApiError(users.createUser('bob'), 409, 'conflict');
    await expectApiError(users.createUser(''), 400, 'bad_request');
    await expectApiError(users.createUser('has space'), 400, 'bad_request');
    await expectApiError(users.createUser('trp_0123456789ab'), 400, 'bad_request');
  });

  it('does not authenticate malformed, unknown or tampered keys', async () => {
    const { users } = await freshDirectory();
    const { key } = await users.createUser('carol');
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    for (const candidate of ['', 'nope', `${key}x`, key.slice(0, -1) + last, key.replace(/^trp_[0-9a-f]{12}/, 'trp_000000000000')]) {
      expect(await users.authenticate(candidate), candidate).to.equal(undefined);
    }
  });

  it('lists users with their key prefixes', async () => {
    const { users } = await freshDirectory();
    const alice = await users.createUser('alice');
    const second = await users.issueKey('alice');
    const bob = await users.createUser('bob');
    const list = await users.listUsers();
    expect(list.map((u) => u.name)).to.deep.equal(['alice', 'bob']);
    expect(list[0]!.keys.map((k) => k.prefix)).to.deep.equal([alice.prefix, second.prefix]);
    expect(list[1]!.keys.map((k) => k.prefix)).to.deep.equal([bob.prefix]);
    expect(list[0]!.revokedAt).to.equal(undefined);
    expect(JSON.stringify(list)).to.not.include(sha256(alice.key));
  });

  it('revokes one key by prefix (or by the whole key), leaving the user\'s other keys working', async () => {
    const { users } = await freshDirectory();
    const first = await users.createUser('dave');
    const second = await users.issueKey('dave');
    const third = await users.issueKey('dave');
    expect(await users.revoke(first.prefix)).to.deep.equal({ revoked: 'key', prefix: first.prefix, user: 'dave', alreadyRevoked: false });
    expect(await users.revoke(third.key)).to.include({ revoked: 'key', prefix: third.prefix });
    expect(await users.authenticate(first.key)).to.equal(undefined);
    expect(await users.authenticate(third.key)).to.equal(undefined);
    expect(await users.authenticate(second.key)).to.include({ name: 'dave' });
    expect(await users.revoke(first.prefix)).to.include({ alreadyRevoked: true });
    const [listed] = await users.listUsers();
    expect(listed!.keys.filter((k) => k.revokedAt).map((k) => k.prefix)).to.have.members([first.prefix, third.prefix]);
  });

  it('revokes a user by name: none of their keys authenticate, and no new key is issued', async () => {
    const { users } = await freshDirectory();
    const first = await users.createUser('erin');
    const second = await users.issueKey('erin');
    const other = await users.createUser('frank');
    expect(await users.revoke('erin')).to.deep.equal({ revoked: 'user', name: 'erin', keys: 2, alreadyRevoked: false });
    expect(await users.authenticate(first.key)).to.equal(undefined);
    expect(await users.authenticate(second.key)).to.equal(undefined);
    expect(await users.authenticate(other.key)).to.include({ name: 'frank' });
    await expectApiError(users.issueKey('erin'), 409, 'conflict');
    await expectApiError(users.revoke('nobody'), 404, 'not_found');
    await expectApiError(users.revoke('trp_000000000000'), 404, 'not_found');
    const erin = (await users.listUsers()).find((u) => u.name === 'erin')!;
    expect(erin.revokedAt).to.be.instanceOf(Date);
  });

  it('ensureLocalUser creates `local` with a key only in an empty database, once', async () => {
    const { users } = await freshDirectory();
    const created = await users.ensureLocalUser();
    expect(created?.user.name).to.equal('local');
    expect(created?.key).to.match(KEY_FORMAT);
    expect(await users.authenticate(created!.key!)).to.deep.equal(created!.user);
    const again = await users.ensureLocalUser();
    expect(again).to.deep.equal({ user: created!.user });

    const other = await freshDirectory();
    await other.users.createUser('operator');
    expect(await other.users.ensureLocalUser()).to.equal(undefined);
  });

  it('ensureLocalUser issues exactly one key when two processes start at once', async () => {
    const { connection } = await freshDirectory();
    const second = await mongoose.createConnection(target.uri, { dbName: connection.name }).asPromise();
    connections.push(second);
    const [a, b] = await Promise.all([
      UserDirectory.open(connection).then((u) => u.ensureLocalUser()),
      UserDirectory.open(second).then((u) => u.ensureLocalUser()),
    ]);
    expect([a?.key, b?.key].filter((k) => k !== undefined)).to.have.length(1);
    expect(a?.user).to.deep.equal(b?.user);
  });

  it('exchanges a login token once for a new API key; the token is stored hashed', async () => {
    const { users, connection } = await freshDirectory();
    const { user } = await users.createUser('gina');
    const { token, expiresAt } = await users.createLoginToken(user.id);
    expect(expiresAt.getTime() - Date.now()).to.be.within(14 * 60 * 1000, 15 * 60 * 1000);
    expect(await dumpDatabase(connection)).to.not.include(token);

    const login = await users.exchangeLoginToken(token);
    expect(login?.user).to.deep.equal(user);
    expect(login?.apiKey).to.match(KEY_FORMAT);
    expect(await users.authenticate(login!.apiKey)).to.deep.equal(user);
    expect(await users.exchangeLoginToken(token)).to.equal(undefined);
    const keys = (await users.listUsers())[0]!.keys;
    expect(keys.map((k) => k.label)).to.deep.equal(['cli', 'web-login']);
  });

  it('lets exactly one of two racing exchanges of a token succeed', async () => {
    const { users } = await freshDirectory();
    const { user } = await users.createUser('hank');
    const { token } = await users.createLoginToken(user.id);
    const results = await Promise.all([users.exchangeLoginToken(token), users.exchangeLoginToken(token), users.exchangeLoginToken(token)]);
    expect(results.filter((r) => r !== undefined)).to.have.length(1);
  });

  it('refuses expired, unknown and malformed tokens, tokens of revoked users, and tokens for unknown users', async () => {
    const expiring = await freshDirectory({ loginTokenTtlMs: 0 });
    const { user } = await expiring.users.createUser('ivy');
    const { token } = await expiring.users.createLoginToken(user.id);
    expect(await expiring.users.exchangeLoginToken(token)).to.equal(undefined);

    const { users } = await freshDirectory();
    const jack = await users.createUser('jack');
    const jackToken = await users.createLoginToken(jack.user.id);
    await users.revoke('jack');
    expect(await users.exchangeLoginToken(jackToken.token)).to.equal(undefined);
    await expectApiError(users.createLoginToken(jack.user.id), 404, 'not_found');
    await expectApiError(users.createLoginToken('not-an-id'), 404, 'not_found');
    await expectApiError(users.createLoginToken(new mongoose.Types.ObjectId().toHexString()), 404, 'not_found');
    for (const bad of ['', 'x', 'a'.repeat(43), '!'.repeat(43)]) expect(await users.exchangeLoginToken(bad), bad).to.equal(undefined);
  });

  it('declares a TTL index on login token expiry and unique indexes on user name and key prefix', async () => {
    const { connection } = await freshDirectory();
    const db = connection.db!;
    const tokenIndexes = await db.collection('login_tokens').listIndexes().toArray();
    expect(tokenIndexes.find((i) => i.key.expiresAt === 1)?.expireAfterSeconds).to.equal(0);
    expect((await db.collection('users').listIndexes().toArray()).find((i) => i.key.name === 1)?.unique).to.equal(true);
    expect((await db.collection('api_keys').listIndexes().toArray()).find((i) => i.key.prefix === 1)?.unique).to.equal(true);
  });
});
