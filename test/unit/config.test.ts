import { expect } from 'chai';
import { ConfigError, loadConfig, type Config } from '../../scripts/config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const expected: Config = {
      nodeEnv: 'development',
      http: { host: '127.0.0.1', port: 8080 },
      redis: { url: undefined },
      mongo: { uri: undefined, dbName: 'troupe', embedded: { port: 0, dbpath: '.troupe/mongo' } },
      log: { level: 'info', pretty: undefined },
    };
    expect(loadConfig({})).to.deep.equal(expected);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '3000',
      HOST: '0.0.0.0',
      REDIS_URL: 'redis://:secret@redis.internal:6380/2',
      MONGODB_URI: 'mongodb://mongo-1:27017,mongo-2:27017/?replicaSet=rs0',
      MONGODB_DB: 'troupe_prod',
      EMBEDDED_MONGO_PORT: '27018',
      EMBEDDED_MONGO_DBPATH: '/var/lib/troupe/mongo',
      LOG_LEVEL: 'debug',
      LOG_PRETTY: 'false',
    });
    expect(config).to.deep.equal({
      nodeEnv: 'production',
      http: { host: '0.0.0.0', port: 3000 },
      redis: { url: 'redis://:secret@redis.internal:6380/2' },
      mongo: {
        uri: 'mongodb://mongo-1:27017,mongo-2:27017/?replicaSet=rs0',
        dbName: 'troupe_prod',
        embedded: { port: 27018, dbpath: '/var/lib/troupe/mongo' },
      },
      log: { level: 'debug', pretty: false },
    });
  });

  it('treats an empty value as unset', () => {
    const config = loadConfig({ PORT: '', REDIS_URL: '', LOG_PRETTY: '' });
    expect(config.http.port).to.equal(8080);
    expect(config.redis.url).to.equal(undefined);
    expect(config.log.pretty).to.equal(undefined);
  });

  it('accepts the usual spellings of a boolean for LOG_PRETTY', () => {
    for (const value of ['true', '1', 'yes', 'on']) expect(loadConfig({ LOG_PRETTY: value }).log.pretty, value).to.equal(true);
    for (const value of ['false', '0', 'no', 'off']) expect(loadConfig({ LOG_PRETTY: value }).log.pretty, value).to.equal(false);
  });

  it('accepts rediss:// and mongodb+srv:// URLs', () => {
    const config = loadConfig({ REDIS_URL: 'rediss://cache.example:6380', MONGODB_URI: 'mongodb+srv://cluster0.example.net/' });
    expect(config.redis.url).to.equal('rediss://cache.example:6380');
    expect(config.mongo.uri).to.equal('mongodb+srv://cluster0.example.net/');
  });

  const badValues: Array<[variable: string, value: string, expected: string]> = [
    ['NODE_ENV', 'prod', 'one of development, production, test'],
    ['PORT', 'abc', 'an integer 0-65535'],
    ['PORT', '65536', 'an integer 0-65535'],
    ['PORT', '80.5', 'an integer 0-65535'],
    ['PORT', '-1', 'an integer 0-65535'],
    ['HOST', '   ', 'a host name or IP address'],
    ['REDIS_URL', 'localhost:6379', 'a redis:// or rediss:// URL'],
    ['REDIS_URL', 'http://localhost:6379', 'a redis:// or rediss:// URL'],
    ['MONGODB_URI', 'postgres://localhost/troupe', 'a mongodb:// or mongodb+srv:// connection string'],
    ['MONGODB_URI', 'mongodb://', 'a mongodb:// or mongodb+srv:// connection string'],
    ['MONGODB_DB', 'troupe.prod', 'a MongoDB database name'],
    ['MONGODB_DB', 'a'.repeat(64), 'a MongoDB database name'],
    ['EMBEDDED_MONGO_PORT', '99999', 'an integer 0-65535'],
    ['LOG_LEVEL', 'verbose', 'one of fatal, error, warn, info, debug, trace, silent'],
    ['LOG_PRETTY', 'maybe', 'a boolean'],
  ];
  for (const [variable, value, expected] of badValues) {
    it(`rejects ${variable}=${JSON.stringify(value)} naming ${variable} and the expected form`, () => {
      const error = configError({ [variable]: value });
      expect(error.problems.map((p) => p.variable)).to.deep.equal([variable]);
      expect(error.message).to.include(`${variable} must be ${expected}`);
      expect(error.message).to.include(`(got ${JSON.stringify(value)})`);
    });
  }

  it('names the exact form for a bad PORT', () => {
    expect(configError({ PORT: 'abc' }).message).to.include('PORT must be an integer 0-65535 (got "abc")');
  });

  it('reports every bad variable at once', () => {
    const error = configError({ PORT: 'x', LOG_LEVEL: 'loud', MONGODB_DB: 'a/b' });
    expect(error.problems.map((p) => p.variable)).to.have.members(['PORT', 'LOG_LEVEL', 'MONGODB_DB']);
  });

  it('masks credentials of a bad URL in the message', () => {
    const error = configError({ REDIS_URL: 'http://admin:hunter2@cache:6379', MONGODB_URI: 'mysql://root:pw123@db/x' });
    expect(error.message).to.not.include('hunter2');
    expect(error.message).to.not.include('pw123');
    expect(error.message).to.include('REDIS_URL must be');
    expect(error.message).to.include('MONGODB_URI must be');
  });

  it('ignores variables it does not know', () => {
    expect(() => loadConfig({ TROUPE_SOMETHING_ELSE: 'x', PATH: '/usr/bin' })).to.not.throw();
  });
});
