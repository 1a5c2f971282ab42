import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { access, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import packageJson from '../../package.json' with { type: 'json' };
import { loadConfig } from '../../scripts/config.js';
import { redisTarget } from '../../queues/redis-client.js';
import { TROUPE_NODE_FLAGS } from '../../scripts/bench/troupe-processes.js';
import { findExecutable } from '../support/executables.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: repoRoot, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}


/** The JSON (exec form) argument of the last `INSTRUCTION [...]` line of a Dockerfile. */
function execForm(dockerfile: string, instruction: string): unknown {
  const lines = dockerfile.split('\n').filter((line) => line.startsWith(`${instruction} `));
  expect(lines, `a ${instruction} line in the Dockerfile`).to.not.be.empty;
  return JSON.parse(lines.at(-1)!.slice(instruction.length + 1));
}

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
  volumes?: string[];
  restart?: string;
  profiles?: string[];
};

interface ScrapeJob {
  job_name: string;
  metrics_path?: string;
  dns_sd_configs?: Array<{ names: string[]; type: string; port: number }>;
}

describe('deployment files (Dockerfile, docker-compose.yml)', function () {
  this.timeout(30_000);
  let compose: { services: Record<string, Service>; volumes?: Record<string, unknown> };
  let dockerfile: string;

  before(async () => {
    compose = parse(await readFile(join(repoRoot, 'docker-compose.yml'), 'utf8'), { merge: true });
    dockerfile = await readFile(join(repoRoot, 'Dockerfile'), 'utf8');
  });

  it('docker-compose config accepts docker-compose.yml', async function () {
    await expectComposeConfigAccepted(this, 'docker-compose.yml');
  });

  it("runs troupe's processes with the Node flags the benchmarks measure: the image (NODE_OPTIONS) and npm start", () => {
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const nodeOptions = /^\s*NODE_OPTIONS=(\S+)/m.exec(runtimeStage)?.[1];
    expect(nodeOptions?.split(' '), 'NODE_OPTIONS in the runtime stage').to.deep.equal([...TROUPE_NODE_FLAGS]);
    expect(packageJson.scripts.start).to.equal(`node ${TROUPE_NODE_FLAGS.join(' ')} bin/troupe.js start`);
  });

  it('has Prometheus scrape the gateways and the workers\' METRICS_PORT, with Grafana and the dashboard in an optional profile', async () => {
    const worker = compose.services.worker!;
    const metricsPort = loadConfig(worker.environment).metrics.port;
    expect(metricsPort, 'workers serve /metrics').to.be.a('number');
    expect(loadConfig(compose.services.gateway!.environment).metrics.port, 'gateways serve /metrics on PORT').to.equal(null);

    const prometheus = parse(await readFile(join(repoRoot, 'deploy/prometheus/prometheus.yml'), 'utf8')) as { scrape_configs: ScrapeJob[] };
    const targets = prometheus.scrape_configs.map((job) => ({ path: job.metrics_path, sd: job.dns_sd_configs?.map(({ names, type, port }) => ({ names, type, port })) }));
    expect(targets).to.deep.equal([
      { path: '/metrics', sd: [{ names: ['gateway'], type: 'A', port: 8080 }] },
      { path: '/metrics', sd: [{ names: ['worker'], type: 'A', port: metricsPort }] },
    ]);

    for (const name of ['prometheus', 'grafana']) {
      const service = compose.services[name]!;
      expect(service.profiles, `${name} starts only with --profile monitoring`).to.deep.equal(['monitoring']);
      expect(service.ports?.every((port) => port.startsWith('127.0.0.1:')), `${name} listens on loopback only`).to.equal(true);
      for (const volume of service.volumes ?? []) {
        if (volume.startsWith('./')) await access(join(repoRoot, volume.split(':')[0]!));
      }
    }
    expect(compose.services.prometheus!.volumes).to.include('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    expect(compose.services.grafana!.volumes).to.include('./deploy/grafana/troupe-dashboard.json:/var/lib/grafana/dashboards/troupe-dashboard.json:ro');
    const provider = parse(await readFile(join(repoRoot, 'deploy/grafana/provisioning/dashboards/troupe.yml'), 'utf8')) as { providers: Array<{ options: { path: string } }> };
    expect(provider.providers[0]!.options.path).to.equal('/var/lib/grafana/dashboards');

    const dashboard = JSON.parse(await readFile(join(repoRoot, 'deploy/grafana/troupe-dashboard.json'), 'utf8')) as { uid: string; panels: Array<{ type: string; datasource?: { uid: string } }> };
    expect(dashboard.uid).to.equal('troupe-overview');
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) expect(panel.datasource?.uid).to.equal('${datasource}');
  });

  it('runs Redis and MongoDB as a one-node replica set, both with healthchecks', () => {
    const { redis, mongo } = compose.services;
    expect(redis?.image).to.match(/^redis:7/);
    expect(redis?.healthcheck?.test?.join(' ')).to.include('redis-cli ping');

    expect(mongo?.image).to.match(/^mongo:7/);
    expect(mongo?.command).to.include.members(['--replSet', 'rs0', '--bind_ip_all']);
    expect(mongo?.command?.[mongo.command.indexOf('--replSet') + 1]).to.equal('rs0');
    const check = mongo?.healthcheck?.test?.join(' ') ?? '';
    expect(check).to.include("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(check).to.include('isWritablePrimary');
    const dataVolume = mongo?.volumes?.find((volume) => volume.endsWith(':/data/db'));
    expect(dataVolume, 'a volume mounted at /data/db').to.be.a('string');
    expect(compose.volumes).to.have.property(dataVolume!.split(':')[0]!);
  });

  for (const [name, role] of [
    ['gateway', 'gateway'],
    ['worker', 'worker'],
  ] as const) {
    it(`runs 2 ${name} replicas of the troupe image, configured for the stack`, () => {
      const service = compose.services[name]!;
      expect(service.build, `${name} builds the Dockerfile`).to.equal('.');
      expect(service.deploy?.replicas).to.equal(2);
      expect(service.command?.[0]).to.equal(role);
      expect(service.environment).to.include({
        REDIS_URL: 'redis://redis:6379',
        MONGODB_URI: 'mongodb://mongo:27017/?replicaSet=rs0',
        MONGODB_DB: 'troupe',
        HOST: '0.0.0.0',
        PORT: '8080',
        LOG_LEVEL: 'info',
      });
      // The same zod schema the processes use at start accepts the environment.
      const config = loadConfig(service.environment);
      expect(config.http).to.include({ host: '0.0.0.0', port: 8080 });
      expect(service.depends_on).to.deep.include({
        redis: { condition: 'service_healthy' },
        mongo: { condition: 'service_healthy' },
      });
    });
  }

  it('loads the MTG dataset once with a one-shot seed service', () => {
    const seed = compose.services.seed!;
    expect(seed.build).to.equal('.');
    expect(seed.command).to.deep.equal(['seed', 'mtg']);
    expect(seed.restart).to.equal('no');
    expect(seed.depends_on).to.deep.include({ mongo: { condition: 'service_healthy' } });
  });

  it('checks gateway health at /healthz and disables the HTTP check for workers', () => {
    expect(compose.services.gateway?.healthcheck?.test?.join(' ')).to.include('/healthz');
    expect(compose.services.gateway?.ports, 'gateways publish no host port (the proxy does)').to.equal(undefined);
    expect(compose.services.worker?.healthcheck?.disable).to.equal(true);
  });

  it('puts an SSE-friendly proxy in front of the gateways', async () => {
    const proxy = compose.services.proxy!;
    expect(proxy.image).to.match(/^nginx:/);
    expect(proxy.ports).to.have.lengthOf(1);
    expect(proxy.volumes).to.include('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(proxy.depends_on).to.deep.include({ gateway: { condition: 'service_healthy' } });
    const nginx = await readFile(join(repoRoot, 'deploy/nginx.conf'), 'utf8');
    expect(nginx).to.match(/server gateway:8080 resolve;/);
    expect(nginx).to.match(/proxy_buffering off;/);
    expect(nginx).to.match(/proxy_read_timeout \d+[hm];/);
  });

  it('builds one non-root image whose entrypoint is the bundled CLI, gateway by default', async () => {
    expect(dockerfile).to.match(/^ARG NODE_IMAGE=node:20-/m);
    expect(dockerfile).to.match(/^RUN npm ci /m);
    expect(dockerfile).to.match(/^RUN npm run build$/m);
    expect(dockerfile).to.match(/--omit=dev/);
    expect(dockerfile).to.match(/^USER node$/m);
    expect(dockerfile).to.match(/^HEALTHCHECK .*\n?.*\/healthz/m);
    expect(dockerfile).to.match(/^\s+HOST=0\.0\.0\.0 \\$/m);
    expect(execForm(dockerfile, 'ENTRYPOINT')).to.deep.equal(['node', 'bin/troupe.js']);
    expect(execForm(dockerfile, 'CMD')).to.deep.equal(['gateway']);
    for (const shipped of ['/app/dist ./dist', '/app/models/data ./models/data', 'bin ./bin', 'package.json ./']) expect(dockerfile).to.include(shipped);

    const ignored = (await readFile(join(repoRoot, '.dockerignore'), 'utf8')).split('\n');
    expect(ignored).to.include.members(['node_modules', 'dist', '.troupe', '.git']);
  });

  it('the bundle runs without its sources, laid out as the image ships it', async function () {
    this.timeout(60_000);
    // bin/troupe.js builds dist/server when it is missing or stale; the image then copies only bin/,
    // dist/, models/data, package.json and the production node_modules.
    const current = await run(process.execPath, ['bin/troupe.js', '--version'], 30_000);
    expect(current.code, current.stderr).to.equal(0);
    await mkdir(join(repoRoot, '.troupe'), { recursive: true });
    const image = await mkdtemp(join(repoRoot, '.troupe', 'image-check-'));
    try {
      const pointer = JSON.parse(await readFile(join(repoRoot, 'dist', 'server', 'CURRENT'), 'utf8')) as { hash: string };
      await cp(join(repoRoot, 'bin'), join(image, 'bin'), { recursive: true });
      await cp(join(repoRoot, 'dist', 'server', pointer.hash), join(image, 'dist', 'server', pointer.hash), { recursive: true });
      await cp(join(repoRoot, 'dist', 'server', 'CURRENT'), join(image, 'dist', 'server', 'CURRENT'));
      await cp(join(repoRoot, 'package.json'), join(image, 'package.json'));
      await symlink(join(repoRoot, 'node_modules'), join(image, 'node_modules'));
      const help = await run(process.execPath, [join(image, 'bin', 'troupe.js'), '--help'], 20_000);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.match(/^Usage: troupe /);
      const version = await run(process.execPath, [join(image, 'bin', 'troupe.js'), '--version'], 20_000);
      expect(version.stdout.trim()).to.equal(packageJson.version);
      // It ran the shipped build: nothing was rebuilt beside it.
      expect(await readdir(join(image, 'dist', 'server'))).to.have.members(['CURRENT', pointer.hash]);
    } finally {
      await rm(image, { recursive: true, force: true });
    }
  });
});

/** The value after `name` in a command line (`--appendonly yes` → 'yes'), or undefined. */
function flag(command: string[] | undefined, name: string): string | undefined {
  const at = command?.indexOf(name) ?? -1;
  return at >= 0 ? command![at + 1] : undefined;
}

/** The one volume of a service mounted at `target`, as `volume:target[:mode]`. */
function volumeAt(service: Service | undefined, target: string): string | undefined {
  return service?.volumes?.find((volume) => volume.split(':')[1] === target);
}

describe('docker-compose.cluster.yml (Redis Cluster, MongoDB replica set)', function () {
  this.timeout(30_000);
  type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };
  let cluster: Compose;
  let single: Compose;
  const redisNodes = ['redis-1', 'redis-2', 'redis-3'];
  const mongoMembers = ['mongo-1', 'mongo-2', 'mongo-3'];

  before(async () => {
    cluster = parse(await readFile(join(repoRoot, 'docker-compose.cluster.yml'), 'utf8'), { merge: true });
    single = parse(await readFile(join(repoRoot, 'docker-compose.yml'), 'utf8'), { merge: true });
  });

  it('docker-compose config accepts docker-compose.cluster.yml', async function () {
    await expectComposeConfigAccepted(this, 'docker-compose.cluster.yml');
  });

  it('runs three Redis Cluster nodes that never evict and keep an append-only file, each on its own volume', () => {
    const dataVolumes = new Set<string>();
    for (const name of redisNodes) {
      const node = cluster.services[name];
      expect(node?.image, name).to.match(/^redis:7/);
      expect(node?.command?.[0]).to.equal('redis-server');
      expect(flag(node?.command, '--cluster-enabled'), `${name} --cluster-enabled`).to.equal('yes');
      expect(flag(node?.command, '--cluster-config-file'), `${name} keeps its cluster state`).to.equal('nodes.conf');
      expect(flag(node?.command, '--maxmemory-policy'), `${name} --maxmemory-policy`).to.equal('noeviction');
      expect(flag(node?.command, '--appendonly'), `${name} --appendonly`).to.equal('yes');
      expect(flag(node?.command, '--port'), `${name} --port`).to.equal('6379');
      expect(node?.healthcheck?.test?.join(' ')).to.include('redis-cli ping');
      const data = volumeAt(node, '/data');
      expect(data, `${name} mounts a volume at /data (AOF and nodes.conf)`).to.be.a('string');
      dataVolumes.add(data!.split(':')[0]!);
    }
    expect([...dataVolumes], 'one volume per node').to.have.lengthOf(redisNodes.length);
    for (const volume of dataVolumes) expect(cluster.volumes).to.have.property(volume);
  });

  it('forms the cluster with a one-shot init service once every node is up, and only when it is not formed yet', async () => {
    const init = cluster.services['redis-cluster-init']!;
    expect(init.image).to.match(/^redis:7/);
    expect(init.restart).to.equal('no');
    for (const name of redisNodes) expect(init.depends_on).to.deep.include({ [name]: { condition: 'service_healthy' } });
    expect(init.command?.slice(0, 2)).to.deep.equal(['sh', '-c']);
    const script = init.command![2]!;
    // Compose would substitute a lone $ from the host's environment: every $ of the script is doubled.
    expect(script.replaceAll('$$', ''), 'an unescaped $ in the init script').to.not.include('$');
    const shell = script.replaceAll('$$', '$');
    const create = 'redis-cli --cluster create redis-1:6379 redis-2:6379 redis-3:6379 --cluster-replicas 0 --cluster-yes';
    expect(shell).to.include(create);
    const check = shell.indexOf('cluster_state');
    expect(check, 'checks cluster_state').to.be.greaterThan(-1);
    expect(check, 'before creating the cluster').to.be.lessThan(shell.indexOf(create));
    expect(shell, 'exits non-zero on the first failing command').to.match(/^set -e$/m);
    const syntax = await run('sh', ['-n', '-c', shell], 10_000);
    expect(syntax.code, `sh -n:\n${syntax.stderr}`).to.equal(0);
  });

  it('runs MongoDB as a three-member replica set rs0, initiated by the first member\'s healthcheck', () => {
    const dataVolumes = new Set<string>();
    for (const name of mongoMembers) {
      const member = cluster.services[name];
      expect(member?.image, name).to.match(/^mongo:7/);
      expect(member?.command).to.include('--bind_ip_all');
      expect(flag(member?.command, '--replSet'), `${name} --replSet`).to.equal('rs0');
      expect(member?.healthcheck?.test, `${name} has a healthcheck`).to.be.an('array');
      const data = volumeAt(member, '/data/db');
      expect(data, `${name} mounts a volume at /data/db`).to.be.a('string');
      dataVolumes.add(data!.split(':')[0]!);
    }
    expect([...dataVolumes], 'one volume per member').to.have.lengthOf(mongoMembers.length);
    for (const volume of dataVolumes) expect(cluster.volumes).to.have.property(volume);

    const first = cluster.services['mongo-1']!;
    const check = first.healthcheck?.test?.join(' ') ?? '';
    expect(check).to.include("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo-1:27017' }, { _id: 1, host: 'mongo-2:27017' }, { _id: 2, host: 'mongo-3:27017' }] })");
    expect(check.indexOf('rs.status()'), 'initiates only when rs.status() fails').to.be.within(0, check.indexOf('rs.initiate'));
    expect(check, 'healthy once the set has a primary').to.match(/db\.hello\(\)\.primary/);
    // rs.initiate needs every member up.
    for (const name of ['mongo-2', 'mongo-3']) expect(first.depends_on).to.deep.include({ [name]: { condition: 'service_healthy' } });
  });

  for (const [name, role] of [
    ['gateway', 'gateway'],
    ['worker', 'worker'],
  ] as const) {
    it(`runs 2 ${name} replicas of the troupe image on the cluster and the replica set`, () => {
      const service = cluster.services[name]!;
      expect(service.build, `${name} builds the Dockerfile`).to.equal('.');
      expect(service.deploy?.replicas).to.equal(2);
      expect(service.command?.[0]).to.equal(role);
      expect(service.environment).to.include({
        REDIS_CLUSTER_NODES: 'redis-1:6379,redis-2:6379,redis-3:6379',
        REDIS_PARTITIONS: '16',
        MONGODB_URI: 'mongodb://mongo-1:27017,mongo-2:27017,mongo-3:27017/?replicaSet=rs0',
      });
      expect(service.environment, 'REDIS_CLUSTER_NODES and REDIS_URL exclude each other').to.not.have.property('REDIS_URL');

      // The same zod schema the processes use at start accepts the environment, and names every node.
      const config = loadConfig(service.environment);
      expect(config.redis.partitions).to.equal(16);
      const target = redisTarget(config.redis.url!);
      expect(target.kind).to.equal('cluster');
      expect(target.kind === 'cluster' ? target.nodes : []).to.deep.equal(redisNodes.map((host) => ({ host, port: 6379 })));
      // (URL cannot parse a list of hosts.)
      const [, hosts, query] = /^mongodb:\/\/([^/?]+)\/?\?(.*)$/.exec(config.mongo.uri ?? '') ?? [];
      expect(hosts?.split(','), 'MONGODB_URI hosts').to.deep.equal(mongoMembers.map((host) => `${host}:27017`));
      expect(new URLSearchParams(query).get('replicaSet')).to.equal('rs0');

      expect(service.depends_on).to.deep.include({
        'redis-cluster-init': { condition: 'service_completed_successfully' },
        'mongo-1': { condition: 'service_healthy' },
      });
    });
  }

  it('gives every troupe process the same partitions, and otherwise the environment of docker-compose.yml', () => {
    const stores = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_PARTITIONS', 'MONGODB_URI'];
    const rest = (environment: Record<string, string> | undefined) => Object.fromEntries(Object.entries(environment ?? {}).filter(([key]) => !stores.includes(key)));
    for (const name of ['gateway', 'worker', 'seed']) {
      const environment = cluster.services[name]?.environment;
      expect(environment?.REDIS_PARTITIONS, `${name} REDIS_PARTITIONS`).to.equal('16');
      expect(rest(environment), name).to.deep.equal(rest(single.services[name]?.environment));
    }
    expect(cluster.services.seed?.depends_on).to.deep.include({ 'redis-cluster-init': { condition: 'service_completed_successfully' } });
  });

  it('keeps the one-shot seed, the proxy, the health checks and the monitoring profile of docker-compose.yml', () => {
    for (const name of ['proxy', 'prometheus', 'grafana']) expect(cluster.services[name], name).to.deep.equal(single.services[name]);
    for (const name of ['gateway', 'worker', 'seed']) {
      const { command, healthcheck, deploy, restart, build, image } = cluster.services[name]!;
      const original = single.services[name]!;
      expect({ command, healthcheck, deploy, restart, build, image }, name).to.deep.equal({
        command: original.command,
        healthcheck: original.healthcheck,
        deploy: original.deploy,
        restart: original.restart,
        build: original.build,
        image: original.image,
      });
    }
    expect(cluster.services).to.not.have.any.keys('redis', 'mongo');
  });
});

/** `docker-compose config -q` accepts the file, with and without the monitoring profile (skipped without docker-compose). */
async function expectComposeConfigAccepted(context: Mocha.Context, file: string): Promise<void> {
  const dockerCompose = await findExecutable('docker-compose');
  if (dockerCompose === undefined) {
    context.test!.title += ' (skipped: no docker-compose binary on PATH)';
    context.skip();
  }
  const { code, stderr } = await run(dockerCompose, ['-f', file, 'config', '-q'], 20_000);
  expect(code, `docker-compose config -q failed:\n${stderr}`).to.equal(0);
  const monitoring = await run(dockerCompose, ['-f', file, '--profile', 'monitoring', 'config', '-q'], 20_000);
  expect(monitoring.code, `docker-compose --profile monitoring config -q failed:\n${monitoring.stderr}`).to.equal(0);
}
