import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';import { join, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import type { CliArgs } from './app.ts';

/** Far above any real package.json (npm's own is 5 KB); what a link to /dev/zero would read without end. */
const PACKAGE_JSON_MAX_BYTES = 1024 * 1024;

interface ManifestArgs extends CliArgs {
  dir: string;
  plan?: string;
  terminationMessage?: string;
}

/**
 * `git walrus manifest <dir> [--plan <dir>] [--termination-message <path>]`: reads and checks the app's manifest (the
 * `walrus` field of <dir>/package.json, npm defaults when absent) and prints it as JSON; a field it cannot use fails
 * the command, naming the field. The build Job's manifest step, with --plan: writes build.sh and test.sh there for
 * the build and test steps (the reproducible build's, src/gitops/build/reproducible.ts) and the plan into the tree's
 * report directory, and the manifest to its termination message, where the controller reads it. A tenant
 * runs it in the app's directory to check a manifest before pushing.
 */
export const manifestCommand: CommandModule<CliArgs, ManifestArgs> = {
  command: 'manifest <dir>',
  describe: "check an app's manifest (package.json \"walrus\") and print the settings it deploys with",
  builder: (y) =>
    y
      .positional('dir', { type: 'string', demandOption: true, describe: "the app's directory (where package.json is)" })
      .example('$0 manifest .', "check this app's manifest and print the settings it deploys with")
      .example('$0 manifest /workspace --plan /walrus-plan', "the build Job's step: also write build.sh and test.sh")
      .option('plan', { type: 'string', describe: 'write the build and test scripts (build.sh, test.sh) into this directory' })
      .option('termination-message', { type: 'string', describe: 'also write the JSON manifest to this file (e.g. /dev/termination-log)' }) as never,
  handler: async (argv) => {
    const [{ ManifestError, parseManifest }, { planBuild }, { readContainedFile, UncontainedFileError }] = await Promise.all([
      import('../gitops/manifest/manifest.ts'),
      import('../gitops/build/build-report.ts'),
      import('../fs/contained-file.ts'),
    ]);    const dir = resolve(argv.dir);
    const lockfile = existsSync(join(dir, 'package-lock.json')) || existsSync(join(dir, 'npm-shrinkwrap.json'));
    let manifest;
    try {
      manifest = parseManifest(await readContainedFile(dir, 'package.json', PACKAGE_JSON_MAX_BYTES), lockfile);
    } catch (error) {
      if (error instanceof ManifestError) throw new UsageError(`the app's manifest: package.json ${error.message}`, error.data);
      if (error instanceof UncontainedFileError) throw new UsageError(`the app's manifest: ${error.message}`, error.data);
      throw error;
    }
    if (argv.plan !== undefined) await planBuild(dir, manifest, argv.plan);
    const result = `${JSON.stringify(manifest)}\n`;
    if (argv.terminationMessage !== undefined) await writeFile(argv.terminationMessage, result);
    argv.app.stdout(result);
  },
};
