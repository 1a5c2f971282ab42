/**
 * The registry metadata at the repository root, checked against each registry's rules (issue 12,
 * "Registry metadata, valid for the real registries"), written here as zod schemas:
 *
 *   smithery.yaml  Smithery: today's CLI reads a loose object (optional name, target, runtime, build);
 *                  the documented start form is `startCommand` (stdio with commandFunction, or http)
 *                  with a JSON Schema `configSchema` and `exampleConfig`.
 *   glama.json     Glama: `$schema` and `maintainers`, nothing else.
 *   server.json    the official MCP Registry, schema 2025-09-29: reverse-DNS name with one slash,
 *                  description of at most 100 characters, exact versions, an npm package on stdio with
 *                  its environment variables, a streamable-http remote; package.json's `mcpName`.
 *
 * And against troupe itself: every tool named in the files is a tool of the actor kinds (so a renamed
 * tool fails here), a tool list names all of them, every environment variable named is one troupe
 * reads, versions and the package name match package.json, and the command smithery.yaml builds
 * really starts troupe's MCP server, which answers `initialize` and `tools/list` with no config.
 */
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { kinds } from '../../actors/index.js';
import { configSchema } from '../../scripts/config.js';
import { resolveMcpOptions } from '../../scripts/mcp.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const readText = (file: string) => readFileSync(new URL(file, new URL('../../', import.meta.url)), 'utf8');

// --- the rules, as zod schemas ---------------------------------------------------------------------

/** Smithery's CLI today (smithery-ai/cli, project config): a loose object, every key optional. */
const smitheryCliSchema = z
  .object({
    name: z.string().regex(/^[a-zA-Z][a-zA-Z0-9-_]{2,38}$/).optional(),
    target: z.enum(['local', 'remote']).optional(),
    runtime: z.enum(['typescript', 'container']).optional(),
    build: z.object({}).loose().optional(),
  })
  .loose();

/** One property of a `configSchema` (JSON Schema). */
const jsonSchemaProperty = z
  .object({
    type: z.enum(['string', 'number', 'integer', 'boolean']),
    title: z.string().min(1).optional(),
    description: z.string().min(1),
    format: z.enum(['uri']).optional(),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    enum: z.array(z.string()).optional(),
  })
  .strict();

const configJsonSchema = z
  .object({
    type: z.literal('object'),
    properties: z.record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9]*$/), jsonSchemaProperty),
    required: z.array(z.string()).optional(),
    additionalProperties: z.boolean().optional(),
  })
  .strict();

const exampleConfigSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** The documented start form: stdio (a command from commandFunction) or http (/mcp at $PORT). */
const smitheryStartSchema = z
  .object({
    startCommand: z.discriminatedUnion('type', [
      z.object({ type: z.literal('stdio'), configSchema: configJsonSchema, commandFunction: z.string().min(1), exampleConfig: exampleConfigSchema.optional() }).strict(),
      z.object({ type: z.literal('http'), configSchema: configJsonSchema, exampleConfig: exampleConfigSchema.optional() }).strict(),
    ]),
    build: z.object({ dockerfile: z.string().optional(), dockerBuildPath: z.string().optional() }).strict().optional(),
  })
  .strict();

/** What commandFunction returns: the command Smithery spawns. */
const startedCommandSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()),
    env: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** A GitHub user or organisation name. */
const GITHUB_OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

const glamaSchema = z
  .object({
    $schema: z.literal('https://glama.ai/mcp/schemas/server.json'),
    maintainers: z.array(z.string().regex(GITHUB_OWNER)).min(1),
  })
  .strict();

const SERVER_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json';
const PUBLISHER_PROVIDED = 'io.modelcontextprotocol.registry/publisher-provided';
/** semver.org's own pattern: an exact version, never a range, `latest` or `1.x`. */
const EXACT_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const exactVersion = z.string().max(255).regex(EXACT_VERSION, { error: 'an exact version such as 1.0.2' });
const NPM_PACKAGE_NAME = /^(?:@[a-z0-9-*~][a-z0-9-*._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** The fields every input of server.json has; the rules ask for description, isRequired and isSecret. */
const inputFields = {
  description: z.string().min(1),
  isRequired: z.boolean(),
  isSecret: z.boolean(),
  format: z.enum(['string', 'number', 'boolean', 'filepath']).optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
};

const environmentVariableSchema = z.object({ name: z.string().regex(/^[A-Z][A-Z0-9_]*$/), ...inputFields }).strict();
const headerSchema = z.object({ name: z.string().regex(/^[A-Za-z0-9-]+$/), ...inputFields }).strict();

const packageArgumentSchema = z.union([
  z
    .object({ type: z.literal('positional'), value: z.string().min(1).optional(), valueHint: z.string().min(1).optional(), description: z.string().optional(), isRepeated: z.boolean().optional() })
    .strict()
    .refine((a) => a.value !== undefined || a.valueHint !== undefined, { error: 'a positional argument needs value or valueHint' }),
  z.object({ type: z.literal('named'), name: z.string().regex(/^--?[a-z]/), value: z.string().optional(), description: z.string().optional(), isRepeated: z.boolean().optional() }).strict(),
]);

const serverJsonSchema = z
  .object({
    $schema: z.literal(SERVER_SCHEMA_URL),
    name: z
      .string()
      .min(3)
      .max(200)
      .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, { error: 'reverse-DNS namespace, exactly one slash, then the server name' })
      .refine((name) => name.split('/')[0]!.includes('.'), { error: 'the namespace is reverse DNS (io.github.OWNER)' }),
    description: z.string().min(1).max(100),
    version: exactVersion,
    websiteUrl: z.url().optional(),
    repository: z.object({ url: z.url(), source: z.string().min(1), id: z.string().optional(), subfolder: z.string().optional() }).strict().optional(),
    packages: z
      .array(
        z
          .object({
            registryType: z.literal('npm'),
            registryBaseUrl: z.literal('https://registry.npmjs.org').optional(),
            identifier: z.string().max(214).regex(NPM_PACKAGE_NAME),
            version: exactVersion,
            transport: z.object({ type: z.literal('stdio') }).strict(),
            runtimeHint: z.string().optional(),
            packageArguments: z.array(packageArgumentSchema).optional(),
            environmentVariables: z.array(environmentVariableSchema),
          })
          .strict(),
      )
      .min(1),
    remotes: z
      .array(z.object({ type: z.literal('streamable-http'), url: z.url({ protocol: /^https$/ }), headers: z.array(headerSchema).optional() }).strict())
      .min(1),
    _meta: z
      .object({ [PUBLISHER_PROVIDED]: z.object({ tools: z.array(z.string()).optional() }).loose() })
      .strict()
      .optional(),
  })
  .strict();

const packageJsonSchema = z
  .object({ name: z.string().regex(NPM_PACKAGE_NAME), version: exactVersion, mcpName: z.string(), bin: z.record(z.string(), z.string()) })
  .loose();

// --- troupe's own facts ----------------------------------------------------------------------------

/** Every tool the kinds declare, which is what `tools/list` answers. */
const troupeTools = kinds.flatMap((kind) => (kind.tools ?? []).map((tool) => tool.name));
/** What `troupe mcp` (the stdio server) reads; the test below checks that it does read them. */
const MCP_VARIABLES = ['TROUPE_API_URL', 'TROUPE_API_KEY'];
/** Every environment variable troupe reads: the config schema's, and `troupe mcp`'s. */
const troupeVariables = new Set([...Object.keys(configSchema.in.shape), ...MCP_VARIABLES]);

/** snake_case words, which in these files can only be tool names (echo, one word, is not caught). */
const toolMentions = (text: string) => new Set(text.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? []);
/** UPPER_SNAKE words: environment variables. */
const variableMentions = (text: string) => new Set(text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? []);
const unknown = (named: Iterable<string>, known: Iterable<string>) => {
  const knownSet = new Set(known);
  return [...named].filter((name) => !knownSet.has(name));
};

// --- the files -------------------------------------------------------------------------------------

const files = {
  'smithery.yaml': readText('smithery.yaml'),
  'glama.json': readText('glama.json'),
  'server.json': readText('server.json'),
};

function parseYaml(text: string): unknown {
  const document = parseDocument(text, { strict: true, uniqueKeys: true, prettyErrors: true });
  if (document.errors.length) throw new Error(`smithery.yaml: ${document.errors.map((e) => e.message).join('; ')}`);
  return document.toJS() as unknown;
}

const smithery = parseYaml(files['smithery.yaml']);
const glama = JSON.parse(files['glama.json']) as unknown;
const serverRaw = JSON.parse(files['server.json']) as unknown;
const packageJson = packageJsonSchema.parse(JSON.parse(readText('package.json')));

function expectValid<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const result = schema.safeParse(value);
  expect(result.success, `${file}: ${result.success ? '' : z.prettifyError(result.error)}`).to.equal(true);
  return result.data as T;
}

/** The stdio start of smithery.yaml (validated). */
function smitheryStart() {
  const start = expectValid(smitheryStartSchema, smithery, 'smithery.yaml').startCommand;
  if (start.type !== 'stdio') throw new Error('smithery.yaml: troupe mcp is started on stdio');
  return start;
}

/** Runs commandFunction the way Smithery does: a JavaScript function of the config. */
function startedCommand(config: Record<string, unknown>) {
  const commandFunction: unknown = runInNewContext(`(${smitheryStart().commandFunction})`, {}, { timeout: 1000 });
  expect(commandFunction).to.be.a('function');
  return expectValid(startedCommandSchema, (commandFunction as (c: unknown) => unknown)(config), 'smithery.yaml commandFunction result');
}

const owner = (serverName: string) => /^io\.github\.([^/]+)\//.exec(serverName)?.[1];

describe('registry metadata (smithery.yaml, glama.json, server.json)', () => {
  describe('smithery.yaml', () => {
    it('is read by the current Smithery CLI and is the documented stdio start form', () => {
      expectValid(smitheryCliSchema, smithery, 'smithery.yaml (current CLI)');
      const start = smitheryStart();
      // Nothing required: initialize and tools/list must work with an empty config.
      expect(start.configSchema.required ?? []).to.deep.equal([]);
      // The example is a valid config: known keys, right types.
      for (const [key, value] of Object.entries(start.exampleConfig ?? {})) {
        const property = start.configSchema.properties[key];
        expect(property, `exampleConfig.${key} is not in configSchema`).to.not.equal(undefined);
        expect(typeof value).to.equal(property!.type === 'integer' ? 'number' : property!.type);
        if (property!.format === 'uri') expect(URL.canParse(String(value)), `exampleConfig.${key}`).to.equal(true);
      }
    });

    it('starts `troupe mcp` on stdio, passing the config as TROUPE_API_URL and TROUPE_API_KEY', () => {
      const bare = startedCommand({});
      expect(bare.command).to.equal('npx');
      expect(bare.args).to.deep.equal([packageJson.name, 'mcp']);
      expect(packageJson.bin, `npx ${packageJson.name} needs a bin of that name`).to.have.property(packageJson.name);
      expect(bare.env ?? {}).to.deep.equal({});

      const example = smitheryStart().exampleConfig ?? {};
      const configured = startedCommand(example);
      expect(configured.env).to.deep.equal({ TROUPE_API_URL: example.apiUrl, TROUPE_API_KEY: example.apiKey });
      expect(unknown(Object.keys(configured.env ?? {}), MCP_VARIABLES)).to.deep.equal([]);

      // troupe mcp takes those variables as its gateway and key.
      const resolved = resolveMcpOptions({ transport: 'stdio', host: '127.0.0.1', port: '3000' }, configured.env ?? {});
      expect(resolved).to.deep.equal({ ok: true, config: { transport: 'stdio', host: '127.0.0.1', port: 3000, apiUrl: String(example.apiUrl), apiKey: String(example.apiKey) } });
    });

    it('answers initialize and tools/list with no config', async function () {
      this.timeout(30_000);
      const { command, args, env } = startedCommand({});
      // `npx troupe` is this package's bin, bin/troupe.js: run it from the checkout (it is not on npm yet).
      expect([command, args[0]]).to.deep.equal(['npx', packageJson.name]);
      const childEnv: Record<string, string> = {};
      for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !MCP_VARIABLES.includes(key)) childEnv[key] = value;
      Object.assign(childEnv, env);
      const transport = new StdioClientTransport({ command: process.execPath, args: [packageJson.bin[packageJson.name]!, ...args.slice(1)], cwd: repoRoot, env: childEnv, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: 'registry-metadata-test', version: '0' });
      try {
        await client.connect(transport);
        expect(client.getServerVersion()).to.include({ name: 'troupe', version: packageJson.version });
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).to.have.members(troupeTools);
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nstderr of troupe mcp:\n${stderr}`, { cause: error });
      } finally {
        await client.close();
      }
    });
  });

  describe('glama.json', () => {
    it('has $schema and maintainers only, the owner of the server.json name among them', () => {
      const { maintainers } = expectValid(glamaSchema, glama, 'glama.json');
      const server = expectValid(serverJsonSchema, serverRaw, 'server.json');
      expect(maintainers).to.include(owner(server.name));
    });
  });

  describe('server.json', () => {
    it('fits the MCP Registry schema of 2025-09-29', () => {
      const server = expectValid(serverJsonSchema, serverRaw, 'server.json');
      expect(owner(server.name), 'name is io.github.OWNER/NAME').to.match(GITHUB_OWNER);
      expect(server.name.split('/')).to.have.length(2);
      const publisherProvided = server._meta?.[PUBLISHER_PROVIDED];
      if (publisherProvided) expect(JSON.stringify(publisherProvided).length, 'publisher-provided metadata is at most 4 KB').to.be.at.most(4096);
      for (const remote of server.remotes) expect(new URL(remote.url).pathname).to.match(/\/mcp$/);
      for (const header of server.remotes.flatMap((r) => r.headers ?? [])) expect(['X-API-Key', 'Authorization']).to.include(header.name);
    });

    it('matches package.json: identifier, versions and mcpName', () => {
      const server = expectValid(serverJsonSchema, serverRaw, 'server.json');
      expect(server.version).to.equal(packageJson.version);
      for (const pkg of server.packages) {
        expect(pkg.identifier).to.equal(packageJson.name);
        expect(pkg.version).to.equal(packageJson.version);
      }
      expect(packageJson.mcpName).to.equal(server.name);
    });

    it('runs the package as smithery.yaml does: `troupe mcp`, with the variables troupe mcp reads', () => {
      const server = expectValid(serverJsonSchema, serverRaw, 'server.json');
      const [pkg] = server.packages;
      const args = (pkg!.packageArguments ?? []).map((a) => (a.type === 'positional' ? a.value : a.name));
      expect([pkg!.identifier, ...args]).to.deep.equal(startedCommand({}).args);
      const variables = pkg!.environmentVariables;
      expect(variables.map((v) => v.name)).to.have.members(MCP_VARIABLES);
      const key = variables.find((v) => v.name === 'TROUPE_API_KEY')!;
      expect({ isSecret: key.isSecret, isRequired: key.isRequired }).to.deep.equal({ isSecret: true, isRequired: false });
      expect(variables.find((v) => v.name === 'TROUPE_API_URL')!.isSecret).to.equal(false);
    });
  });

  describe('against troupe', () => {
    it('troupe mcp reads TROUPE_API_URL and TROUPE_API_KEY', () => {
      const resolved = resolveMcpOptions({ transport: 'stdio', host: '127.0.0.1', port: '0' }, { TROUPE_API_URL: 'http://gateway.test:1234/', TROUPE_API_KEY: 'k' });
      expect(resolved.ok && resolved.config).to.include({ apiUrl: 'http://gateway.test:1234', apiKey: 'k' });
    });

    it('names only tools troupe has, and lists all of them', () => {
      for (const [file, text] of Object.entries(files)) {
        expect(unknown(toolMentions(text), troupeTools), `tools named in ${file} that no kind declares`).to.deep.equal([]);
      }
      const server = expectValid(serverJsonSchema, serverRaw, 'server.json');
      const listed = server._meta?.[PUBLISHER_PROVIDED]?.tools;
      if (listed) {
        expect(new Set(listed).size, 'server.json lists a tool twice').to.equal(listed.length);
        expect(listed).to.have.members(troupeTools);
      }
      expect(troupeTools.length).to.be.greaterThan(0);
    });

    it('a renamed tool fails that check', () => {
      const renamed = troupeTools.map((name) => (name === 'send_email' ? 'email_send' : name));
      expect(unknown(toolMentions(files['server.json']), renamed)).to.deep.equal(['send_email']);
    });

    it('names only environment variables troupe reads', () => {
      for (const [file, text] of Object.entries(files)) {
        expect(unknown(variableMentions(text), troupeVariables), `variables named in ${file} that troupe does not read`).to.deep.equal([]);
      }
      const server = expectValid(serverJsonSchema, serverRaw, 'server.json');
      const declared = server.packages.flatMap((p) => p.environmentVariables.map((v) => v.name));
      expect(unknown(declared, troupeVariables)).to.deep.equal([]);
    });
  });
});
