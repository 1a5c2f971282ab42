import { expect } from 'chai';
import { z } from 'zod';
import type { AnyKind, KindMcpSurface, ToolContract } from '../../actors/runtime/contract.js';
import { failureText, toolCatalogue } from '../../gateway/mcp/tools.js';
import { counterKind, testKinds } from '../support/test-kinds.js';

const tool = (name: string, description = 'does a thing'): ToolContract => ({
  name,
  description,
  input: { x: z.string() },
  toMessage: () => ({ actorId: 'a', type: 'add', payload: {} }),
});
const kindWith = (kind: string, tools: ToolContract[]): AnyKind => ({ ...counterKind, kind, tools });

describe('MCP tool catalogue (gateway/mcp/tools.ts)', () => {
  it('collects every kind’s tools with strict input schemas', () => {
    const catalogue = toolCatalogue(testKinds);
    expect(catalogue.map((t) => t.contract.name)).to.deep.equal(['counter_add', 'counter_echo', 'counter_fail']);
    const add = catalogue[0];
    expect(add.input.safeParse({ counter: 'c', n: 1 }).success).to.equal(true);
    expect(add.input.safeParse({ counter: 'c', n: 1, extra: true }).success).to.equal(false);
    expect(add.output?.safeParse({ count: 2 }).success).to.equal(true);
  });

  it('refuses duplicate, undescribed and badly named tools at start-up', () => {
    expect(() => toolCatalogue([kindWith('a', [tool('t')]), kindWith('b', [tool('t')])])).to.throw(/declared by both a and b/);
    expect(() => toolCatalogue([kindWith('a', [tool('t', '  ')])])).to.throw(/no description/);
    for (const name of ['', 'has space', 'comma,', '-dash', 'dot.', 'x'.repeat(129), 'é']) {
      expect(() => toolCatalogue([kindWith('a', [tool(name)])]), name).to.throw(/naming rule/);
    }
  });

  it('words failures for a model: rate limits say when to retry', () => {
    expect(failureText({ code: 'rate_limited', message: 'at most 1 counter messages per 60 s per user', details: { retryAfterSeconds: 42 } })).to.equal(
      'Rate limited: at most 1 counter messages per 60 s per user. Retry after 42 seconds.',
    );
    expect(failureText({ code: 'not_found', message: 'game g1 not found', details: {} })).to.equal('game g1 not found (not_found)');
  });
});

describe('MCP surfaces of the kinds (actors/mcp-surfaces.ts, what `troupe mcp` lists)', () => {
  it('are exactly the tools, resources and prompts of the kinds the gateway runs, in the same order', async () => {
    const [{ kinds }, { mcpSurfaces }] = await Promise.all([import('../../actors/index.js'), import('../../actors/mcp-surfaces.js')]);
    const surfaceOf = (kind: KindMcpSurface) => ({ kind: kind.kind, tools: kind.tools ?? [], resources: kind.resources ?? [], prompts: kind.prompts ?? [] });
    const shown = kinds.map(surfaceOf).filter((s) => s.tools.length + s.resources.length + s.prompts.length > 0);
    expect(mcpSurfaces.map((s) => s.kind)).to.deep.equal(shown.map((s) => s.kind));
    // The same contract objects, not look-alikes.
    mcpSurfaces.map(surfaceOf).forEach((surface, i) => {
      for (const part of ['tools', 'resources', 'prompts'] as const) {
        expect(surface[part].length, `${surface.kind} ${part}`).to.equal(shown[i][part].length);
        surface[part].forEach((contract, j) => expect(contract, `${surface.kind} ${part}[${j}]`).to.equal(shown[i][part][j]));
      }
    });
  });
});
