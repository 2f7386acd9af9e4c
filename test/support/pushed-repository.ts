/** The prologue most end-to-end tests share: a world with a work repository of one commit, pushed to a new remote. */
import { commit, createWorld, initWorkRepo, walrusInit, type World } from '../../scripts/harness/world.ts';

export interface PushedRepository {
  world: World;
  /** The work repository (its path relative to the world). */
  repo: string;
  /** The new remote's `walrus://` URL. */
  url: string;
  /** The commit pushed. */
  first: string;
}

/**
 * Runs `test` in a new world where `first.dir` holds one commit of `first.file`, pushed (`main`) to a new repository
 * `name` on the world's network; the world is removed afterwards, whatever the test did.
 */
export async function inPushedRepository(name: string, first: { dir: string; file: string; content: string }, test: (pushed: PushedRepository) => Promise<void>): Promise<void> {
  const world = createWorld();
  try {
    const repo = await initWorkRepo(world, first.dir);
    const commitId = await commit(world, repo, first.file, first.content);
    const url = await walrusInit(world, repo, name);
    await world.ok(repo, ['push', '-q', 'walrus', 'main']);
    await test({ world, repo, url, first: commitId });
  } finally {
    world.remove();
  }
}
