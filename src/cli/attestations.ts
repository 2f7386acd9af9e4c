import { join } from 'node:path';
import type { CommandModule } from 'yargs';
import { InternalError, UsageError } from '../core/errors.ts';
import { AttestationMissedError } from '../core/attestation.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import type { CliArgs } from './app.ts';
import { ExitError } from './app.ts';
import { rebuildHere } from './artifact.ts';
import type { KeptBuild } from '../core/kept-attestations.ts';
import { providerArg, withMarket } from './market-services.ts';
import { REMOTE_ARG, resolveRemoteArg } from './remote-arg.ts';

interface AttestationsArgs extends CliArgs {
  remote: string;
  commit: string;
  network?: string;
  json: boolean;
}

/**
 * `git walrus attestations <remote> <commit>`: every tally of the commit's builds (one per build key): agreed,
 * disputed or pending, who committed and who revealed which digests.
 */
export const attestationsCommand: CommandModule<CliArgs, AttestationsArgs> = {
  command: 'attestations <remote> <commit>',
  describe: "show which providers attested a commit's build, under which build key, and whether they agree",
  builder: (y) =>
    y
      .example('$0 attestations walrus 39363cd6…', 'the tallies of that commit: reproduced by N providers, or disputed')
      .positional('remote', REMOTE_ARG)
      .positional('commit', { type: 'string', demandOption: true, describe: 'the full commit id (40 or 64 hex digits)' })
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const commit = commitArg(argv.commit);
    const { formatAttestations } = await import('../remote/market/attestation-format.ts');
    await withMarket(app, argv, async (market, services) => {
      const { id } = await resolveRemoteArg(argv.remote, services.ledger, app.workspace);
      const attestations = market.attestations();
      const keys = (await attestations.buildKeysOf(id)).get(commit) ?? [];
      const tallies = (await Promise.all(keys.map(async (buildKey) => ({ buildKey, tally: await attestations.tally({ repositoryId: id, commit, buildKey }) }))))
        .flatMap((t) => (t.tally === null ? [] : [{ buildKey: t.buildKey, tally: t.tally }]));
      app.stdout(argv.json ? `${JSON.stringify(tallies)}\n` : formatAttestations(commit, tallies, await market.clockMs()));
    });
  },
};

interface AttestArgs extends CliArgs {
  lease: string;
  provider?: string;
  image?: string;
  network?: string;
}

/**
 * `git walrus attest <lease>`: a provider (the signer holds its cap) rebuilds the lease's last deployed commit on this
 * machine and attests what it got: a commitment now, the reveal once the tally's commit window closes (the command
 * waits). It attests its own digests, matching the record or not; a mismatch is what makes a tally disputed. Run again
 * after an interruption, it finds its commitment on chain and reveals it (the nonce is derived from the key), with the
 * digests the interrupted run built and kept under GIT_WALRUS_HOME/attestations/ (not building again).
 */
export const attestCommand: CommandModule<CliArgs, AttestArgs> = {
  command: 'attest <lease>',
  describe: "as a provider, rebuild a lease's deployed commit here and attest its digests on chain (commit, then reveal)",
  builder: (y) =>
    y
      .example('$0 attest 0x5e1f…', "rebuild the lease's last deploy and attest it as the signer's provider")
      .positional('lease', { type: 'string', demandOption: true, describe: 'the lease whose last deploy to rebuild' })
      .option('provider', { type: 'string', describe: 'the attesting provider (default: the only one whose cap the signer holds)' })
      .option('image', { type: 'string', describe: "the image this machine builds in, as the build key names it (default: local); only builds under one key are compared" }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const [{ attest }, { LOCAL_IMAGE }, { keptAttestationsFile }] = await Promise.all([
      import('../remote/market/attest.ts'), import('../gitops/build/rebuild.ts'), import('../fs/kept-attestations-file.ts'),
    ]);
    const reproduced = await withMarket(app, argv, async (market, services) => {
      const lease = await market.getLease(normalizeSuiId(argv.lease));
      if (lease.lastDeploy === null) throw new UsageError(`lease ${lease.id} has recorded no deploy yet: there is nothing to attest`, { lease: lease.id });
      const providerId = await providerArg(market, argv.provider);
      const attester = { providerId, capId: await market.providerCapId(providerId) };
      const { commit, artifact, sha256 } = lease.lastDeploy;
      // What an interrupted run built is kept (per network and provider) until its reveal: run again, it reveals that.
      if (app.homeDir === undefined) throw new InternalError('this build of git walrus has no home directory to keep its attestations in');
      const state = keptAttestationsFile(join(app.homeDir, 'attestations', services.networkName, `${normalizeSuiId(providerId)}.json`));
      const kept = await state.load();
      const same = (build: KeptBuild) => normalizeSuiId(build.repositoryId) === normalizeSuiId(lease.repository) && build.commit === commit && (argv.image ?? LOCAL_IMAGE) === build.image;
      let build = kept.builds.find(same);
      if (build) {
        app.log.info(`Using the build of ${commit.slice(0, 12)} an earlier run made and kept (tar sha256 ${build.tarSha256}, build key ${build.buildKey}): not building again.`);
      } else {
        const verdict = await rebuildHere(services, app, { repository: lease.repository, commit, artifact, sha256, lease: lease.id }, argv.image);
        if (verdict.buildInfo === null) throw new UsageError(`the build of ${commit} left no build report, so it has no build key to attest under`, { commit });
        build = { repositoryId: lease.repository, commit, lease: lease.id, tarSha256: verdict.sha256, manifestRoot: verdict.manifestRoot, buildKey: verdict.buildInfo.buildKey, image: verdict.buildInfo.inputs.image };
        await state.save({ ...kept, builds: [...kept.builds, build] });
      }
      const at = { repositoryId: lease.repository, commit, buildKey: build.buildKey };
      const sign = services.signPersonalMessage;
      if (!sign) throw new InternalError('this build of git walrus cannot sign, so it cannot derive an attestation nonce');
      const digests = { tarSha256: build.tarSha256, manifestRoot: build.manifestRoot };
      const forget = async () => {
        const left = await state.load();
        await state.save({ ...left, builds: left.builds.filter((other) => !same(other)) });
      };
      let done;
      try {
        done = await attest({
          attestations: market.attestations(),
          clockMs: () => market.clockMs(),
          signPersonalMessage: (message) => sign(message),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          onCommitted: (until) => app.log.info(`Committed to tar sha256 ${digests.tarSha256} under build key ${at.buildKey}; revealing after ${new Date(until).toISOString()}.`),
        }, attester, at, digests);
      } catch (error) {
        // A window missed for good: nothing left to reveal, so nothing to keep.
        if (error instanceof AttestationMissedError) await forget();
        throw error;
      }
      await forget();
      app.log.info(done.revealed === undefined ? 'This provider had revealed this build already.' : `Revealed (transactions ${[done.committed, done.revealed].filter(Boolean).join(', ')}).`);
      const matches = build.tarSha256 === sha256;
      app.stdout(`${attestedVerdict(matches, build.image === LOCAL_IMAGE)}: attested tar sha256 ${build.tarSha256} under build key ${at.buildKey} (image ${build.image})\n`);
      return matches;
    });
    if (!reproduced) throw new ExitError('', 1);
  },
};

/**
 * What an attestation's own digest says about the record: under a key that names this machine's tools (`local`), other
 * bytes than the record's are another key's result (the attestation forms a tally of its own), not a dispute.
 */
function attestedVerdict(reproduced: boolean, local: boolean): string {
  if (reproduced) return 'reproduced';
  return local ? 'different bytes under a different build key (image local: a tally of its own, not a dispute)' : 'NOT reproduced';
}

function commitArg(text: string): string {
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(text)) throw new UsageError(`${text} is not a full commit id (40 or 64 hex digits)`, { commit: text });
  return text.toLowerCase();
}
