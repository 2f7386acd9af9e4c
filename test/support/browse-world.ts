/**
 * A second, smaller world for the code-browsing pages of `git walrus web`, pushed through stock git and the real
 * helper on the embedded network:
 * - `docs` (public): a long README with a table of contents, a file with a history of its own, a picture of each kind
 *   (PNG, SVG that carries a script), a Markdown file with a relative image, tags that sort differently as strings and
 *   as versions, two pushers (the owner and a writer) and a forced update;
 * - `wide` (public): SHA-256 object ids;
 * - `broken` (public): its second pack's blob has one byte flipped on Walrus after the push;
 * - `moved` (public): a file changed, renamed into a folder (the owner's push), then changed again (the writer's);
 * - a lease on `docs` (the owner its tenant, the writer its provider) with two secrets set, and the provider's gateway at
 *   its registered endpoint, reporting the app released at the last commit after a refused one.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { commit, createWorld, initWorkRepo, type World } from '../../scripts/harness/world.ts';
import { listenLeaseGateway, type LeaseGatewayServer } from './lease-gateway.ts';

/** A 1×1 PNG. */
export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082', 'hex');
export const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>window.__pwned="svg"</script><rect width="10" height="10" fill="red"/></svg>\n';
/** A README with a table of contents whose sections lie far below the first screen. */
export const README = ['# Docs', '', '- [About](#about)', '- [Install](#install)', '', '## About', '', ...Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} about the project.\n`), '## Install', '', 'Run `npm install`.', '', ...Array.from({ length: 60 }, (_, i) => `Step ${i + 1} of the install.\n`)].join('\n');
/** Tags in the order a string sort gives; by version the order is v0.9.0, v0.10.0-rc.1, v0.10.0, v1.2.0, v1.10.0. */
export const TAGS = ['v0.10.0', 'v0.10.0-rc.1', 'v0.9.0', 'v1.10.0', 'v1.2.0'];

export interface BrowseWorld {
  world: World;
  docs: { id: string; commits: Record<string, string>; writer: string };
  lease: { id: string; provider: string; secrets: Record<string, string> };
  /** The lease's provider's gateway (test/support/lease-gateway.ts); closed by the suite. */
  gateway: LeaseGatewayServer;
  wide: { id: string; commit: string };
  broken: { id: string };
  moved: { id: string; commits: Record<string, string> };
  keys: { owner: NodeJS.ProcessEnv; writer: NodeJS.ProcessEnv };
}

const idOf = (url: string) => url.slice('walrus://'.length);

export async function buildBrowseWorld(): Promise<BrowseWorld> {
  const world = createWorld('walrus-browse-');
  const owner = Ed25519Keypair.generate();
  const writer = Ed25519Keypair.generate();
  const keys = { owner: { GIT_WALRUS_KEY: owner.getSecretKey() }, writer: { GIT_WALRUS_KEY: writer.getSecretKey() } };
  const as = (repo: string, args: string[], env = keys.owner) => world.ok(repo, args, { env });

  const docs = await initWorkRepo(world, 'docs');
  const commits: Record<string, string> = {};
  commits.first = await commit(world, docs, 'notes.txt', 'one\n', 'notes: one line');
  writeFileSync(world.path(docs, 'pixel.png'), PNG);
  writeFileSync(world.path(docs, 'drawing.svg'), SVG);
  writeFileSync(world.path(docs, 'README.md'), README);
  writeFileSync(world.path(docs, 'GUIDE.md'), '# Guide\n\n![pixel](pixel.png)\n\n## Steps\n\nRead [the notes](notes.txt).\n');
  writeFileSync(world.path(docs, 'lines.js'), Array.from({ length: 30 }, (_, i) => `const line${i + 1} = ${i + 1}; /* a comment\n   over two lines */`).join('\n') + '\n');
  await world.ok(docs, ['add', '.']);
  await world.ok(docs, ['commit', '-q', '-m', 'pictures, a guide and a long file']);
  commits.second = await world.ok(docs, ['rev-parse', 'HEAD']);
  const url = (await as(docs, ['walrus', 'init', 'docs'])).split('\n').at(-1)!;
  await as(docs, ['walrus', 'writers', 'add', 'walrus', writer.toSuiAddress()]);
  for (const tag of TAGS) await world.ok(docs, ['tag', tag, commits.first]);
  await as(docs, ['push', '-q', 'walrus', 'main', ...TAGS]); //                  1: the owner
  commits.third = await commit(world, docs, 'notes.txt', 'one\ntwo\n', 'notes: two lines');
  await as(docs, ['push', '-q', 'walrus', 'main'], keys.writer); //               2: the writer
  commits.fourth = await commit(world, docs, 'notes.txt', 'one\ntwo\nthree\n', 'notes: three lines');
  await as(docs, ['push', '-q', 'walrus', 'main']); //                             3: the owner
  await world.ok(docs, ['commit', '-q', '--amend', '-m', 'notes: three lines, reworded']);
  commits.fourthB = await world.ok(docs, ['rev-parse', 'HEAD']);
  await as(docs, ['push', '-q', '--force', 'walrus', 'main']); //                 4: forced, the owner

  // A lease on docs: the writer provides (its gateway at the endpoint it registers), the owner rents and sets secrets.
  const gateway = await listenLeaseGateway();
  await as(docs, ['walrus', 'provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', gateway.endpoint], keys.writer);
  const provider = (await as(docs, ['walrus', 'provider', 'show'], keys.writer)).match(/provider\s+(0x[0-9a-f]{64})/)![1]!;
  const lease = (await as(docs, ['walrus', 'lease', 'open', 'walrus', '--provider', provider, '--deposit', '5'])).trim();
  const secrets = { API_TOKEN: 'tok-3f9a the value', DATABASE_URL: 'postgres://app:pw@db/app' };
  await as(docs, ['walrus', 'secrets', 'set', lease, ...Object.entries(secrets).map(([name, value]) => `${name}=${value}`)]);
  await gateway.serve({
    stateDir: join(world.path('walrus-home'), 'local'), providerId: provider, providerKey: writer,
    app: { lease, tenant: owner.toSuiAddress(), repository: idOf(url), released: commits.fourthB!, refused: commits.fourth!, secrets },
  });

  const wide = await initWorkRepo(world, 'wide', 'sha256');
  await commit(world, wide, 'README.md', '# Wide\n\nObject ids of 64 hex digits.\n', 'the first commit');
  const wideCommit = await commit(world, wide, 'more.txt', 'more\n', 'a second commit');
  const wideUrl = (await as(wide, ['walrus', 'init', 'wide'])).split('\n').at(-1)!;
  await as(wide, ['push', '-q', 'walrus', 'main']);

  // moved: a file changed, renamed into a folder, then changed by the writer (blame and a history across the rename).
  const moved = await initWorkRepo(world, 'moved');
  const movedCommits: Record<string, string> = {};
  movedCommits.add = await commit(world, moved, 'old.js', 'const a = 1;\nconst b = 2;\nconst c = 3;\n', 'add old.js');
  movedCommits.change = await commit(world, moved, 'old.js', 'const a = 1;\nconst b = 20;\nconst c = 3;\n', 'b is twenty');
  mkdirSync(world.path(moved, 'src'));
  await world.ok(moved, ['mv', 'old.js', 'src/new.js']);
  await world.ok(moved, ['commit', '-q', '-m', 'move old.js to src/new.js']);
  movedCommits.rename = await world.ok(moved, ['rev-parse', 'HEAD']);
  const movedUrl = (await as(moved, ['walrus', 'init', 'moved'])).split('\n').at(-1)!;
  await as(moved, ['walrus', 'writers', 'add', 'walrus', writer.toSuiAddress()]);
  await as(moved, ['push', '-q', 'walrus', 'main']); //                           1: the owner
  movedCommits.writer = await commit(world, moved, 'src/new.js', 'const a = 1;\nconst b = 20;\nconst c = 30;\n', 'c is thirty');
  await as(moved, ['push', '-q', 'walrus', 'main'], keys.writer); //               2: the writer

  const broken = await initWorkRepo(world, 'broken');
  await commit(world, broken, 'a.txt', 'a\n', 'first');
  const brokenUrl = (await as(broken, ['walrus', 'init', 'broken'])).split('\n').at(-1)!;
  await as(broken, ['push', '-q', 'walrus', 'main']);
  await commit(world, broken, 'b.txt', 'b\n'.repeat(1000), 'second');
  await as(broken, ['push', '-q', 'walrus', 'main']);
  const log = JSON.parse(await as(broken, ['walrus', 'log', 'walrus', '--json'])) as { pushes: Array<{ seq: number; pack: { blobIds: string[] } | null }> };
  const file = world.path('walrus-home', 'local', 'walrus', 'blobs', log.pushes.find((p) => p.seq === 2)!.pack!.blobIds[0]!);
  const bytes = readFileSync(file);
  bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
  writeFileSync(file, bytes);

  return {
    world,
    docs: { id: idOf(url), commits, writer: writer.toSuiAddress() },
    lease: { id: lease, provider, secrets },
    gateway,
    wide: { id: idOf(wideUrl), commit: wideCommit },
    broken: { id: idOf(brokenUrl) },
    moved: { id: idOf(movedUrl), commits: movedCommits },
    keys,
  };
}
