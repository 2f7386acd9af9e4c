/**
 * The dependency direction of docs/architecture.md ("Layers and dependency direction"), checked by `npm run lint`
 * (depcruise src test scripts bench). Inner ring: core, ports, contract. Use-cases: remote. Fronts: cli, web,
 * protocol, gitops. Adapters: sui, walrus, seal, k8s, git, devnet, config, fs (walrus-protocol is what the Walrus
 * adapter and the devnet's Walrus service share; light-client is the checkpoint verifier the Sui adapter runs and the
 * devnet's checkpoints are made for). Composition roots: main. The rules on `src/` hold the product; the ones from
 * anywhere (circles, unresolvable or undeclared packages, importing a test file) hold the tooling too.
 */
const INNER = '^src/(core|ports|contract)/';
const ADAPTERS = '(sui|walrus|seal|k8s|git|devnet|config|fs|walrus-protocol|light-client)';
const FRONTS = '(cli|web|protocol|gitops)';
/** Node's built-in modules that reach outside the process (files, processes, the network, the terminal, threads). */
const IO_BUILTINS = '^(node:)?(fs|fs/promises|child_process|net|dgram|dns|dns/promises|http|https|http2|tls|os|readline|readline/promises|tty|worker_threads|cluster|inspector|process)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'inner-ring-is-inner',
      comment: 'core, ports and contract are pure: they import only each other',
      severity: 'error',
      from: { path: INNER },
      to: { path: '^src/', pathNot: INNER },
    },
    {
      name: 'inner-ring-does-no-io',
      comment: 'core, ports and contract do no I/O: no Node module for files, processes, the network or the terminal',
      severity: 'error',
      from: { path: INNER },
      to: { dependencyTypes: ['core'], path: IO_BUILTINS },
    },
    {
      name: 'remote-sees-ports-only',
      comment: 'the use-cases reach the world through ports: never a front, an adapter or a composition root',
      severity: 'error',
      from: { path: '^src/remote/' },
      to: { path: '^src/', pathNot: ['^src/remote/', INNER] },
    },
    {
      name: 'fronts-not-adapters',
      comment: 'fronts call remote, core and ports; the composition root gives them adapters',
      severity: 'error',
      from: { path: `^src/${FRONTS}/` },
      to: { path: `^src/(main|sui|walrus|seal|k8s|git|devnet|config|walrus-protocol|light-client)/` },
    },
    {
      name: 'only-the-cli-touches-files',
      comment: 'of the fronts only the CLI imports fs (the directories a command is given: a checkout, an artifact\'s tree), and only inside a handler (cli-loads-use-cases-on-run)',
      severity: 'error',
      from: { path: '^src/(web|protocol|gitops)/' },
      to: { path: '^src/fs/' },
    },
    {
      name: 'fronts-apart',
      comment: 'no front imports another, statically or dynamically (the web front end reads what the controller recorded through ports, never the controller)',
      severity: 'error',
      from: { path: '^src/(web|protocol|gitops)/' },
      to: { path: `^src/${FRONTS}/`, pathNot: '^src/$1/' },
    },
    {
      name: 'cli-fronts-only-the-manifest-step',
      comment: 'the one crossing between fronts: the build Job\'s tool steps (`git walrus manifest`, `checkout`, `artifact pack|rebuild`) read the app manifest and plan the build with the controller\'s own code (gitops/manifest/, gitops/build/), so a local rebuild runs exactly what the Job runs; the CLI imports no other front',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(web|protocol|gitops)/', pathNot: '^src/gitops/(manifest|build)/' },
    },
    {
      name: 'cli-loads-use-cases-on-run',
      comment: 'a git walrus command imports the use-cases it runs inside its handler: every command loads the whole command table, so a static import would make every other command load them too (docs/architecture.md, "How the executables start")',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(remote|gitops|fs)/', pathNot: '^src/remote/(errors|progress)\\.ts$', dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'adapters-inward',
      comment: 'an adapter implements ports: it imports the inner ring, crash-safe files (fs) and walrus-protocol, never a use-case, a front or another adapter',
      severity: 'error',
      from: { path: `^src/${ADAPTERS}/` },
      to: { path: '^src/', pathNot: ['^src/$1/', INNER, '^src/fs/', '^src/walrus-protocol/', '^src/light-client/'] },
    },
    {
      name: 'sdks-in-adapters-only',
      comment: 'only adapters (and the composition roots that build them) import the Mysten SDKs; the twin and the shared Walrus pieces use its pure BCS codec',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(sui|walrus|seal|devnet|config|main)/' },
      to: { path: '^@mysten/|node_modules/@mysten/', pathNot: ['node_modules/@mysten/(sui/dist/bcs|bcs|walrus-wasm)/'] },
    },
    {
      name: 'bcs-in-codecs-only',
      comment: 'the pure BCS codec is for the twin, the shared Walrus pieces and the adapters',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(sui|walrus|seal|devnet|config|main|contract|walrus-protocol|light-client)/'] },
      to: { path: 'node_modules/@mysten/(sui/dist/bcs|bcs|walrus-wasm)/' },
    },
    {
      name: 'kubernetes-client-in-k8s-only',
      comment: 'the Kubernetes adapter and the composition root call @kubernetes/client-node; the controller and its ports name its object types (type-only)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(k8s|main)/' },
      to: { path: 'node_modules/@kubernetes/client-node/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'kubernetes-types-in-controller-only',
      comment: 'Kubernetes object types belong to the controller, its cluster ports and the Kubernetes adapter',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(k8s|main|gitops)/', '^src/ports/(cluster|tenant-cluster|templates|app-window)\\.ts$'] },
      to: { path: 'node_modules/@kubernetes/client-node/' },
    },
    {
      name: 'main-is-the-root',
      comment: 'nothing imports a composition root',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/main/' },
      to: { path: '^src/main/' },
    },
    {
      name: 'product-not-tooling',
      comment: 'the product never imports its tests, benchmarks or scripts',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'product-on-declared-dependencies',
      comment: 'the product imports only its dependencies, never a devDependency (an install without them must run)',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-undeclared-packages',
      comment: 'a package imported anywhere is declared in package.json; one test compares our stand-in with the string-width that yargs itself installs, so that one, undeclared, is the point',
      severity: 'error',
      from: { pathNot: '^test/cli/string-width\\.test\\.ts$' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'no-circles',
      comment: 'no module imports itself through others: each circle is one job cut in two, or a type in the wrong module',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'tests-are-not-libraries',
      comment: 'nothing imports a test file; what tests share lives in test/**/support/ or scripts/harness/',
      severity: 'error',
      from: {},
      to: { path: '\\.test\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that resolves to nothing is a typo or a missing dependency',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types'] },
    skipAnalysisNotInRules: true,
  },
};
