import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1ContainerState, V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { BUILD_ATTEMPTS, classifyBuildFailure, decideBuildRetry, retryDelayMs } from '../../src/gitops/reconcile/build-failure.ts';
import { BuildSecretNotSetError } from '../../src/core/lease-secrets.ts';
import { NPM_11_CI_FAILED, NPM_CI_FAILED, NPM_INSTALL_SCRIPT_FAILED } from './support/npm-output.ts';

const container = (name: string, state: V1ContainerState): V1ContainerStatus => ({ name, image: '', imageID: '', ready: false, restartCount: 0, state });
const exited = (exitCode: number, message?: string): V1ContainerState => ({ terminated: { exitCode, ...(message ? { message } : {}) } });
const running: V1ContainerState = { running: {} };
const waiting: V1ContainerState = { waiting: { reason: 'PodInitializing' } };
/** A build pod with its three steps in the states given (checkout, build: init containers; pack: the main one). */
const pod = (checkout: V1ContainerState, build: V1ContainerState, pack: V1ContainerState, status: Partial<NonNullable<V1Pod['status']>> = {}, name = 'hello-b-1'): V1Pod => ({
  metadata: { name, creationTimestamp: new Date('2026-11-23T03:00:00Z') },
  status: { phase: 'Failed', initContainerStatuses: [container('checkout', checkout), container('build', build)], containerStatuses: [container('pack', pack)], ...status },
});
const failedJob = (reason = 'BackoffLimitExceeded', message = 'Job has reached the specified backoff limit'): V1Job => ({
  spec: { activeDeadlineSeconds: 600, template: {} },
  status: { conditions: [{ type: 'Failed', status: 'True', reason, message }] },
});

const classify = suite('a failed build: the app\'s fault or the infrastructure\'s');
classify('the build step exiting non-zero is the app\'s: BuildFailed, with the container to quote', () => {
  const failure = classifyBuildFailure(failedJob(), [pod(exited(0), exited(1, 'npm error 404'), waiting)]);
  assert.is(failure.kind, 'app');
  assert.is(failure.reason, 'BuildFailed');
  assert.is(failure.summary, 'container build exited with code 1');
  assert.equal(failure.container, { pod: 'hello-b-1', name: 'build', exitCode: 1, message: 'npm error 404' });
});
classify('an invalid manifest and failing tests are the app\'s: ManifestInvalid, TestsFailed, with the step to quote', () => {
  const steps = (manifest: V1ContainerState, tests: V1ContainerState): V1Pod => ({
    metadata: { name: 'hello-b-1', creationTimestamp: new Date('2026-11-23T03:00:00Z') },
    status: {
      phase: 'Failed',
      initContainerStatuses: [container('checkout', exited(0)), container('manifest', manifest), container('build', tests === waiting ? waiting : exited(0)), container('test', tests)],
      containerStatuses: [container('pack', waiting)],
    },
  });
  const invalid = classifyBuildFailure(failedJob(), [steps(exited(1), waiting)]);
  assert.equal([invalid.kind, invalid.reason, invalid.container?.name], ['app', 'ManifestInvalid', 'manifest']);
  const tests = classifyBuildFailure(failedJob(), [steps(exited(0), exited(1))]);
  assert.equal([tests.kind, tests.reason, tests.container?.name], ['app', 'TestsFailed', 'test']);
  assert.is(decideBuildRetry(tests, 1, new Date()).retry, false);
});
classify("a build secret the lease has not set is the app's (BuildSecretNotSet, not retried); the network failing it is not", () => {
  const lease = '0x' + 'c'.repeat(64);
  const secretsPod = (state: V1ContainerState): V1Pod => ({
    metadata: { name: 'hello-b-1', creationTimestamp: new Date('2026-11-23T03:00:00Z') },
    status: {
      phase: 'Failed',
      initContainerStatuses: [container('checkout', exited(0)), container('manifest', exited(0)), container('build-secrets', state), container('build', waiting), container('test', waiting)],
      containerStatuses: [container('pack', waiting)],
    },
  });
  const missing = classifyBuildFailure(failedJob(), [secretsPod(exited(1, `fatal: ${new BuildSecretNotSetError(lease, ['NPM_TOKEN']).message}\n`))]);
  assert.equal([missing.kind, missing.reason, missing.container?.name], ['app', 'BuildSecretNotSet', 'build-secrets']);
  assert.match(missing.container!.message!, new RegExp(`git walrus secrets set ${lease} NPM_TOKEN=`));
  assert.is(decideBuildRetry(missing, 1, new Date()).retry, false);
  const down = classifyBuildFailure(failedJob(), [secretsPod(exited(1, 'fatal: the devnet at http://h did not answer'))]);
  assert.equal([down.kind, down.reason], ['infrastructure', 'ToolFailed']);
});
classify('checkout or pack exiting non-zero is the infrastructure\'s (the chain, Walrus, the node), named by step', () => {
  const checkout = classifyBuildFailure(failedJob(), [pod(exited(1, 'fatal: the devnet at http://h did not answer'), waiting, waiting)]);
  assert.equal([checkout.kind, checkout.reason, checkout.container?.name], ['infrastructure', 'CheckoutFailed', 'checkout']);
  const silent = classifyBuildFailure(failedJob(), [pod(exited(127), waiting, waiting)]);
  assert.equal([silent.kind, silent.reason, silent.summary], ['infrastructure', 'CheckoutFailed', 'container checkout exited with code 127']);
  const pack = classifyBuildFailure(failedJob(), [pod(exited(0), exited(0), exited(1, 'fatal: walrus store failed'))]);
  assert.equal([pack.kind, pack.reason], ['infrastructure', 'PackFailed']);
});
classify('a checkout the key servers refused is about access, named by its reason, and not retried', () => {
  const words = (reason: string) => `fatal: cannot decrypt the packs of repository 'shop' (0x${'a'.repeat(64)}): ${reason}: the Seal key servers give 0x1 no keys`;
  for (const [message, reason] of [
    [words('lease closed'), 'LeaseClosed'],
    [words('lease exhausted'), 'LeaseExhausted'],
    [words('not the lease\'s provider'), 'NotLeaseProvider'],
    [words('tenant not a reader'), 'TenantNotReader'],
    [`fatal: repository 'shop' (0x${'a'.repeat(64)}) is private and 0x${'b'.repeat(64)} is not one of its readers: ask its owner`, 'NotAReader'],
  ] as const) {
    const failure = classifyBuildFailure(failedJob(), [pod(exited(1, message), waiting, waiting)]);
    assert.equal([failure.kind, failure.reason], ['access', reason]);
    assert.equal(decideBuildRetry(failure, 1, new Date(0)), { retry: false });
  }
});
classify('a step whose command could not start says why, in the runtime\'s words, instead of an empty log tail', () => {
  const notFound = 'exec: "git-walrus": executable file not found in $PATH';
  const cannotRun: V1ContainerState = { terminated: { exitCode: 127, reason: 'ContainerCannotRun', message: notFound } };
  const checkout = classifyBuildFailure(failedJob(), [pod(cannotRun, waiting, waiting)]);
  assert.equal([checkout.kind, checkout.reason], ['infrastructure', 'CheckoutFailed']);
  assert.is(checkout.summary, `container checkout could not start (exit code 127): ContainerCannotRun: ${notFound}`);
  assert.equal(checkout.container, { pod: 'hello-b-1', name: 'checkout', exitCode: 127 }, 'no message to repeat after the summary');
  const startError: V1ContainerState = { terminated: { exitCode: 128, reason: 'StartError', message: 'failed to create containerd task: permission denied' } };
  const pack = classifyBuildFailure(failedJob(), [pod(exited(0), exited(0), startError)]);
  assert.equal([pack.reason, pack.summary], ['PackFailed', 'container pack could not start (exit code 128): StartError: failed to create containerd task: permission denied']);
  // Stuck waiting until the deadline: the step and its reason.
  const stuck: V1ContainerState = { waiting: { reason: 'RunContainerError', message: `failed to start container "checkout": ${notFound}` } };
  const deadline = classifyBuildFailure(failedJob('DeadlineExceeded', 'Job was active longer than specified deadline'), [pod(stuck, waiting, waiting, { reason: 'DeadlineExceeded' })]);
  assert.match(deadline.summary, `in step checkout, which could not start: RunContainerError: failed to start container "checkout": ${notFound}`);
  const noFailed = classifyBuildFailure(failedJob(), [pod(stuck, waiting, waiting, { phase: 'Pending' })]);
  assert.match(noFailed.summary, 'container checkout could not start: RunContainerError');
});
classify('a pod that is gone, or failed with no failed container, is the infrastructure\'s', () => {
  const gone = classifyBuildFailure(failedJob(), []);
  assert.equal([gone.kind, gone.reason], ['infrastructure', 'PodLost']);
  assert.match(gone.summary, 'BackoffLimitExceeded');
  const none = classifyBuildFailure(failedJob(), [pod(exited(0), running, waiting, { phase: 'Running' })]);
  assert.equal([none.kind, none.reason], ['infrastructure', 'BackoffLimitExceeded']);
});
classify('an eviction is the node\'s, unless the build outgrew its emptyDir (its own use)', () => {
  const pressure = classifyBuildFailure(failedJob(), [pod(exited(0), exited(137), waiting, { reason: 'Evicted', message: 'The node was low on resource: memory.' })]);
  assert.equal([pressure.kind, pressure.reason], ['infrastructure', 'PodEvicted']);
  const outgrown = classifyBuildFailure(failedJob(), [pod(exited(0), exited(137), waiting, { reason: 'Evicted', message: 'Usage of EmptyDir volume "workspace" exceeds the limit "2Gi". ' })]);
  assert.equal([outgrown.kind, outgrown.reason], ['app', 'BuildFailed']);
  assert.match(outgrown.summary, 'EmptyDir volume "workspace"');
});
classify('a deadline reached in the build step is the app\'s (BuildTimedOut); before it, the node\'s', () => {
  const inBuild = classifyBuildFailure(failedJob('DeadlineExceeded', 'Job was active longer than specified deadline'), [pod(exited(0), exited(137), waiting, { reason: 'DeadlineExceeded' })]);
  assert.equal([inBuild.kind, inBuild.reason], ['app', 'BuildTimedOut']);
  assert.match(inBuild.summary, '600 s');
  const inCheckout = classifyBuildFailure(failedJob('DeadlineExceeded', 'Job was active longer than specified deadline'), [pod(exited(137), waiting, waiting, { reason: 'DeadlineExceeded' })]);
  assert.equal([inCheckout.kind, inCheckout.reason], ['infrastructure', 'DeadlineExceeded']);
  assert.match(inCheckout.summary, 'in step checkout');
  const podDeleted = classifyBuildFailure(failedJob('DeadlineExceeded', 'Job was active longer than specified deadline'), []);
  assert.equal([podDeleted.kind, podDeleted.reason], ['infrastructure', 'PodLost']);
});
classify('the newest pod tells (a replaced pod\'s older failure does not)', () => {
  const older = { ...pod(exited(0), exited(1), waiting, {}, 'old'), metadata: { name: 'old', creationTimestamp: new Date('2026-11-23T02:00:00Z') } };
  const newer = pod(exited(1), waiting, waiting, {}, 'new');
  assert.is(classifyBuildFailure(failedJob(), [older, newer]).container?.pod, 'new');
});
classify.run();

const registry = suite('a build or test step that could not reach the package registry: the infrastructure\'s, RegistryUnreachable');
/** A pod whose build step (or, with `step` test, its test step) exited 1 with `output` as its termination message (its log tail). */
const npmFailed = (output: string, step: 'build' | 'test' = 'build'): V1Pod => ({
  metadata: { name: 'hello-b-1', creationTimestamp: new Date('2026-11-23T03:00:00Z') },
  status: {
    phase: 'Failed',
    initContainerStatuses: [
      container('checkout', exited(0)), container('manifest', exited(0)),
      container('build', step === 'build' ? exited(1, output) : exited(0)), container('test', step === 'test' ? exited(1, output) : waiting),
    ],
    containerStatuses: [container('pack', waiting)],
  },
});
registry('npm\'s own network and registry errors, as npm 10 and 11 print them: the code, the host, no credentials', () => {
  for (const [output, code, host, words] of [
    [NPM_CI_FAILED.EAI_AGAIN, 'EAI_AGAIN', 'registry.npmjs.org', 'a temporary DNS failure'],
    [NPM_CI_FAILED.EAI_AGAIN_VERBOSE, 'EAI_AGAIN', 'registry.npmjs.org', 'a temporary DNS failure'],
    [NPM_CI_FAILED.ENOTFOUND, 'ENOTFOUND', 'registry.npmjs.org', 'its name did not resolve'],
    [NPM_CI_FAILED.ECONNREFUSED, 'ECONNREFUSED', '127.0.0.1:1', 'the connection was refused'],
    [NPM_CI_FAILED.ECONNRESET, 'ECONNRESET', '127.0.0.1:8081', 'the connection was reset'],
    [NPM_CI_FAILED.ETIMEDOUT, 'ETIMEDOUT', '127.0.0.1:8087', 'the connection timed out'],
    [NPM_CI_FAILED.FETCH_TIMEOUT, 'FETCH_ERROR', '127.0.0.1:8086', 'did not answer in time'],
    [NPM_CI_FAILED.E503, 'E503', '127.0.0.1:8082', 'the registry answered HTTP 503 Service Unavailable'],
    [NPM_CI_FAILED.E502, 'E502', '127.0.0.1:8083', 'the registry answered HTTP 502 Bad Gateway'],
    [NPM_CI_FAILED.E500, 'E500', '127.0.0.1:8084', 'the registry answered HTTP 500 Internal Server Error'],
    [NPM_CI_FAILED.E429, 'E429', '127.0.0.1:8085', 'the registry answered HTTP 429 Too Many Requests'],
    [NPM_11_CI_FAILED.ENOTFOUND, 'ENOTFOUND', 'registry.npmjs.org', 'its name did not resolve'],
    [NPM_11_CI_FAILED.ECONNREFUSED, 'ECONNREFUSED', '127.0.0.1:1', 'the connection was refused'],
    [NPM_11_CI_FAILED.ECONNRESET, 'ECONNRESET', '127.0.0.1:8081', 'the connection was reset'],
    // npm 9 and older (and early 10) say `npm ERR!`; a reset mid-body names the URL differently.
    [[
      'npm ERR! code ECONNRESET', 'npm ERR! errno ECONNRESET',
      'npm ERR! network Invalid response body while trying to fetch https://registry.npmjs.org/@types%2fnode: aborted',
      'npm ERR! network This is a problem related to network connectivity.', '',
    ].join('\n'), 'ECONNRESET', 'registry.npmjs.org', 'the connection was reset'],
  ] as const) {
    const failure = classifyBuildFailure(failedJob(), [npmFailed(`$ npm ci\n${output}\n`)]);
    assert.equal([failure.kind, failure.reason, failure.container?.name], ['infrastructure', 'RegistryUnreachable', 'build'], code);
    assert.match(failure.summary, `the build step could not reach the package registry at ${host}: npm ${code}, `, code);
    assert.match(failure.summary, words, code);
    assert.match(failure.summary, 'not the app', code);
    assert.not.match(failure.summary, 's3cret', 'the URL\'s credentials stay out');
    assert.not.match(failure.summary, 'left-pad', 'the host, not the path');
    assert.equal(decideBuildRetry(failure, 1, new Date(0)), { retry: true, attempt: 2, retryAt: new Date(10_000) });
  }
});
registry('a URL npm did not redact still gives only its host', () => {
  const output = 'npm ERR! code ECONNREFUSED\nnpm ERR! request to https://ci:s3cret@mirror.example:8443/left-pad failed, reason: connect ECONNREFUSED 10.0.0.9:8443\n';
  const failure = classifyBuildFailure(failedJob(), [npmFailed(output)]);
  assert.match(failure.summary, 'at mirror.example:8443: npm ECONNREFUSED');
  assert.not.match(failure.summary, 's3cret');
});
registry('the test step\'s own npm (npx fetching a tool) failing the same way is the registry\'s too', () => {
  const failure = classifyBuildFailure(failedJob(), [npmFailed(NPM_CI_FAILED.EAI_AGAIN, 'test')]);
  assert.equal([failure.kind, failure.reason, failure.container?.name], ['infrastructure', 'RegistryUnreachable', 'test']);
  assert.match(failure.summary, 'the test step could not reach the package registry at registry.npmjs.org: npm EAI_AGAIN');
});
registry('network words that are not npm\'s own report stay the app\'s', () => {
  for (const [output, step, reason] of [
    // A test that cannot reach its database, run by `npm test` (which prints nothing of its own when a script fails).
    ['> shop@1.0.0 test\n> node --test\n\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {\n  code: \'ECONNREFUSED\'\n}\n', 'test', 'TestsFailed'],
    // A dependency's install script that cannot download: npm's code is the script's exit.
    [NPM_INSTALL_SCRIPT_FAILED, 'build', 'BuildFailed'],
    // npm's error, then the build went on and failed otherwise (`npm ci || true; npm run build`).
    [`${NPM_CI_FAILED.EAI_AGAIN}\n$ npm run build\nsh: 1: tsc: not found\n`, 'build', 'BuildFailed'],
    // A package that does not exist: npm's E404 is about the app's dependencies.
    ['npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/no-such-package - Not found\nnpm error 404  \'no-such-package@^1.0.0\' is not in this registry.\n', 'build', 'BuildFailed'],
    // The words without npm's code line.
    ['npm error network request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org\n', 'build', 'BuildFailed'],
  ] as const) {
    const failure = classifyBuildFailure(failedJob(), [npmFailed(output, step)]);
    assert.equal([failure.kind, failure.reason], ['app', reason], output.split('\n')[0]);
    assert.is(decideBuildRetry(failure, 1, new Date(0)).retry, false);
  }
});
registry('only the app\'s steps are read for it: the checkout\'s failure stays CheckoutFailed, a step that never ran says why', () => {
  const checkout = classifyBuildFailure(failedJob(), [pod(exited(1, NPM_CI_FAILED.EAI_AGAIN), waiting, waiting)]);
  assert.equal([checkout.kind, checkout.reason], ['infrastructure', 'CheckoutFailed']);
  const cannotRun: V1ContainerState = { terminated: { exitCode: 127, reason: 'StartError', message: NPM_CI_FAILED.EAI_AGAIN } };
  const build = classifyBuildFailure(failedJob(), [pod(exited(0), cannotRun, waiting)]);
  assert.equal([build.kind, build.reason], ['app', 'BuildFailed']);
});
registry.run();

const retry = suite('build retries: bounded, with exponential back-off, never for the app\'s own failure');
retry('the app\'s failure is never retried', () => {
  assert.equal(decideBuildRetry({ kind: 'app' }, 1, new Date(0)), { retry: false });
});
retry('an infrastructure failure is retried after 10 s, then 20 s, until the attempts are spent', () => {
  const now = new Date('2026-11-23T03:00:00Z');
  assert.equal(decideBuildRetry({ kind: 'infrastructure' }, 1, now), { retry: true, attempt: 2, retryAt: new Date(now.getTime() + 10_000) });
  assert.equal(decideBuildRetry({ kind: 'infrastructure' }, 2, now), { retry: true, attempt: 3, retryAt: new Date(now.getTime() + 20_000) });
  assert.equal(decideBuildRetry({ kind: 'infrastructure' }, BUILD_ATTEMPTS, now), { retry: false });
  assert.equal(decideBuildRetry({ kind: 'infrastructure' }, 5, now, 6), { retry: true, attempt: 6, retryAt: new Date(now.getTime() + 160_000) });
});
retry('the back-off doubles and is capped at 5 minutes', () => {
  assert.equal([1, 2, 3, 4].map(retryDelayMs), [10_000, 20_000, 40_000, 80_000]);
  assert.is(retryDelayMs(10), 300_000);
});
retry.run();
