/**
 * Renders contracts/tests/market_scenarios_tests.move from contracts/tests/market_scenarios.json (one Move test per
 * scenario, through `test_scenario`): each step is a transaction at its clock time; after a successful step a check
 * transaction takes every coin the step paid (and checks its value) and the expected provider and lease state.
 * Called by scripts/gen-move-tests.ts, which writes it and lets scripts/check-move.ts find it stale.
 */
import { toHex } from '@mysten/bcs';
import { TALLY_STATUS_NAMES } from '../src/contract/attestation-model.ts';
import { LeaseEndReason } from '../src/contract/market-bcs.ts';
import { LEASE_STATES, abortingModule } from '../test/contract/vectors/market-scenarios.ts';
import type { CommitmentSpec, MarketScenarioFile, MarketStep, SecretId } from '../test/contract/vectors/market-scenarios.ts';

const str = (s: string): string =>
  /^[\x20-\x7e]*$/.test(s) && !/["\\]/.test(s) ? `string::utf8(b"${s}")` : `string::utf8(x"${Buffer.from(s).toString('hex')}")`;
const bytes = (b: Uint8Array): string => `x"${toHex(b)}"`;
const addr = (a: string): string => `@${a}`;
const ident = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
const strings = (items: string[]): string => (items.length === 0 ? 'vector<std::string::String>[]' : `vector[${items.map(str).join(', ')}]`);
const mint = (amount: bigint): string => `coin::mint_for_testing<SUI>(${amount}, s.ctx())`;

/** A key id for the secrets policies, as a Move expression. */
function secretId(id: SecretId): string {
  const parts = [
    ...(id.lease === null ? [] : [`object::id_to_bytes(&lease_${ident(id.lease)})`]),
    ...(id.repo === null ? [] : [`object::id_to_bytes(&repo_${ident(id.repo)})`]),
    ...(id.lease !== null && id.domain ? ['b"lease-secrets"'] : []),
    bytes(id.suffix),
  ];
  return parts.length === 1 ? parts[0]! : `{ let mut id = ${parts[0]}; ${parts.slice(1).map((p) => `id.append(${p});`).join(' ')} id }`;
}

/** A commitment, as a Move expression (`commitment_of` of a provider label's id, or raw bytes). */
function commitment(spec: CommitmentSpec): string {
  if ('raw' in spec) return bytes(spec.raw);
  return `attestation::commitment_of(${bytes(spec.tar)}, ${bytes(spec.root)}, provider_${ident(spec.provider)}, ${bytes(spec.nonce)})`;
}

/** The statements of one step's transaction (inside a block), with `clock` in scope. */
function stepBody(step: MarketStep, owners: Map<string, string>, admin: string): string[] {
  const c = step.call;
  const take = {
    market: (mut: boolean) => `let ${mut ? 'mut ' : ''}market = s.take_shared<Market>();`,
    provider: (label: string, mut: boolean) => `let ${mut ? 'mut ' : ''}provider = s.take_shared_by_id<Provider>(provider_${ident(label)});`,
    lease: (label: string, mut: boolean) => `let ${mut ? 'mut ' : ''}lease = s.take_shared_by_id<Lease>(lease_${ident(label)});`,
    repo: (label: string, mut: boolean) => `let ${mut ? 'mut ' : ''}repo = s.take_shared_by_id<Repository>(repo_${ident(label)});`,
    cap: (label: string) => `let cap = s.take_from_address_by_id<ProviderCap>(${addr(owners.get(label)!)}, cap_${ident(label)});`,
    admin: () => `let admin = s.take_from_address<AdminCap>(${addr(admin)});`,
  };
  const give = {
    shared: (name: string) => `ts::return_shared(${name});`,
    cap: (label: string) => `ts::return_to_address(${addr(owners.get(label)!)}, cap);`,
    admin: () => `ts::return_to_address(${addr(admin)}, admin);`,
  };
  switch (c.call) {
    case 'set_params':
      return [take.market(true), take.admin(), `market::set_params(&mut market, &admin, ${c.min_stake}, ${c.unbonding_ms}, ${c.min_lease_ms});`, give.admin(), give.shared('market')];
    case 'create_repository':
    case 'create_private_repository': {
      const create = c.call === 'create_repository' ? 'create' : 'create_private';
      return ['let mut registry = s.take_shared<Registry>();', `let id = repository::${create}(&mut registry, ${str(c.name)}, ${str('refs/heads/main')}, s.ctx());`, 'ts::return_shared(registry);', 'id'];
    }
    case 'push':
      return [
        take.repo(c.repo, true),
        `repository::push(&mut repo, vector[${str(c.ref)}], vector[${c.old === null ? 'option::none()' : `option::some(${bytes(c.old)})`}], vector[option::some(${bytes(c.new)})], vector[false], option::none(), &clock, s.ctx());`,
        give.shared('repo'),
      ];
    case 'add_writer':
    case 'add_reader':
    case 'remove_reader':
      return [take.repo(c.repo, true), `repository::${c.call}(&mut repo, ${addr(c.address)}, s.ctx());`, give.shared('repo')];
    case 'register':
      return [take.market(false), `let id = market::register(&market, ${mint(c.stake)}, ${c.price_per_ms}, ${str(c.endpoint)}, ${strings(c.keys)}, ${strings(c.values)}, s.ctx());`, give.shared('market'), 'id'];
    case 'add_stake':
      return [take.provider(c.provider, true), take.cap(c.cap), `market::add_stake(&mut provider, &cap, ${mint(c.amount)});`, give.cap(c.cap), give.shared('provider')];
    case 'request_unbond':
      return [take.market(false), take.provider(c.provider, true), take.cap(c.cap), 'market::request_unbond(&market, &mut provider, &cap, &clock);', give.cap(c.cap), give.shared('provider'), give.shared('market')];
    case 'withdraw_stake':
      return [take.provider(c.provider, true), take.cap(c.cap), 'market::withdraw_stake(&mut provider, &cap, &clock, s.ctx());', give.cap(c.cap), give.shared('provider')];
    case 'slash':
      return [take.admin(), take.provider(c.provider, true), take.lease(c.lease, false), `market::slash(&admin, &mut provider, &lease, ${c.amount}, s.ctx());`, give.shared('lease'), give.shared('provider'), give.admin()];
    case 'open_lease':
      return [
        take.market(false), take.provider(c.provider, true), take.repo(c.repo, false),
        `let id = market::open_lease(&market, &mut provider, &repo, ${str(c.ref)}, ${mint(c.deposit)}, &clock, s.ctx());`,
        give.shared('repo'), give.shared('provider'), give.shared('market'), 'id',
      ];
    case 'top_up':
      return [take.lease(c.lease, true), `market::top_up(&mut lease, ${mint(c.amount)}, &clock, s.ctx());`, give.shared('lease')];
    case 'settle':
      return [take.lease(c.lease, true), 'market::settle(&mut lease, &clock);', give.shared('lease')];
    case 'claim':
      return [take.lease(c.lease, true), take.provider(c.provider, false), take.cap(c.cap), 'market::claim(&mut lease, &provider, &cap, &clock, s.ctx());', give.cap(c.cap), give.shared('provider'), give.shared('lease')];
    case 'close':
      return [take.lease(c.lease, true), take.provider(c.provider, true), 'market::close(&mut lease, &mut provider, &clock, s.ctx());', give.shared('provider'), give.shared('lease')];
    case 'provider_close':
      return [take.lease(c.lease, true), take.provider(c.provider, true), take.cap(c.cap), 'market::provider_close(&mut lease, &mut provider, &cap, &clock, s.ctx());', give.cap(c.cap), give.shared('provider'), give.shared('lease')];
    case 'record_deploy':
      return [
        take.lease(c.lease, true), take.cap(c.cap), take.repo(c.repo, false),
        `market::record_deploy(&mut lease, &cap, &repo, ${bytes(c.commit)}, ${c.artifact}, ${bytes(c.sha256)}, &clock);`,
        give.shared('repo'), give.cap(c.cap), give.shared('lease'),
      ];
    case 'seal_approve_lease': {
      const id = c.id.repo === null ? bytes(c.id.suffix) : `{ let mut id = object::id_to_bytes(&repo_${ident(c.id.repo)}); id.append(${bytes(c.id.suffix)}); id }`;
      return [
        take.repo(c.repo, false), take.lease(c.lease, false), take.cap(c.cap),
        `lease_access::seal_approve_lease_for_testing(${id}, &repo, &lease, &cap, &clock);`,
        give.cap(c.cap), give.shared('lease'), give.shared('repo'),
      ];
    }
    case 'set_secrets':
      return [take.lease(c.lease, true), `lease_secrets::set_secrets(&mut lease, ${c.blob_id}, ${c.version}, &clock, s.ctx());`, give.shared('lease')];
    case 'seal_approve_lease_secrets':
      return [
        take.repo(c.repo, false), take.lease(c.lease, false), take.cap(c.cap),
        `lease_secrets::seal_approve_lease_secrets_for_testing(${secretId(c.id)}, &repo, &lease, &cap, &clock);`,
        give.cap(c.cap), give.shared('lease'), give.shared('repo'),
      ];
    case 'seal_approve_lease_secrets_as_tenant':
      return [take.lease(c.lease, false), `lease_secrets::seal_approve_lease_secrets_as_tenant_for_testing(${secretId(c.id)}, &lease, s.ctx());`, give.shared('lease')];
    case 'set_windows':
      return [take.market(true), take.admin(), `attestation::set_windows(&mut market, &admin, ${c.commit_ms}, ${c.reveal_ms});`, give.admin(), give.shared('market')];
    case 'commit_build':
    case 'reveal_build': {
      const args = c.call === 'commit_build' ? [commitment(c.commitment)] : [bytes(c.tar), bytes(c.root), bytes(c.nonce)];
      return [
        take.market(true), take.provider(c.provider, false), take.cap(c.cap), take.repo(c.repo, false),
        `attestation::${c.call}(&mut market, &provider, &cap, &repo, ${bytes(c.commit)}, ${bytes(c.build_key)}, ${args.join(', ')}, &clock);`,
        give.shared('repo'), give.cap(c.cap), give.shared('provider'), give.shared('market'),
      ];
    }
    case 'require_reproduced':
      return [take.lease(c.lease, true), `attestation::require_reproduced(&mut lease, ${c.required}, &clock, s.ctx());`, give.shared('lease')];
    case 'state_url':
      return [
        take.lease(c.lease, true), take.provider(c.provider, false), take.cap(c.cap),
        `market::state_url(&mut lease, &provider, &cap, ${str(c.url)}, &clock);`,
        give.cap(c.cap), give.shared('provider'), give.shared('lease'),
      ];
    case 'withdraw_url':
      return [
        take.lease(c.lease, true), take.provider(c.provider, false), take.cap(c.cap),
        'market::withdraw_url(&mut lease, &provider, &cap, &clock);',
        give.cap(c.cap), give.shared('provider'), give.shared('lease'),
      ];
  }
}

/** The label a step defines (its result is bound to a variable), or null. */
function defines(step: MarketStep): string | null {
  const c = step.call;
  if (c.call === 'create_repository' || c.call === 'create_private_repository') return `repo_${ident(c.repo)}`;
  if (c.call === 'register') return `provider_${ident(c.provider)}`;
  if (c.call === 'open_lease') return `lease_${ident(c.lease)}`;
  return null;
}

/** The Move tests of a scenario file in this format: market_scenarios.json, lease_access_scenarios.json, lease_secrets_scenarios.json or attestation_scenarios.json. */
export function renderMarketScenarioTests(file: MarketScenarioFile, source = 'market_scenarios.json'): string {
  const module = source.replace(/\.json$/, '_tests');
  const policy = file.scenarios.some((scenario) => scenario.steps.some((step) => step.call.call === 'seal_approve_lease'));
  const out: string[] = [`// Generated by scripts/gen-move-tests.ts from contracts/tests/${source}: do not edit by hand.`, ''];
  out.push('#[test_only]', `module walrus_git::${module};`, '');
  out.push('use std::string;', 'use std::unit_test::assert_eq;', 'use sui::clock;', 'use sui::coin::{Self, Coin};', 'use sui::sui::SUI;', 'use sui::test_scenario as ts;');
  if (policy) out.push('use walrus_git::lease_access;');
  const secrets = file.scenarios.some((scenario) => scenario.steps.some((step) => abortingModule(step.call.call) === 'lease_secrets'));
  if (secrets) out.push('use walrus_git::lease_secrets;');
  const attestations = file.scenarios.some((scenario) => scenario.steps.some((step) => abortingModule(step.call.call) === 'attestation'));
  if (attestations) out.push('use walrus_git::attestation;');
  out.push('use walrus_git::market::{Self, AdminCap, Lease, Market, Provider, ProviderCap};', 'use walrus_git::repository::{Self, Registry, Repository};');
  const admin = file.actors.get(file.admin)!;
  const line = (indent: number, ...lines: string[]) => lines.forEach((l) => out.push(`${'    '.repeat(indent)}${l}`));

  file.scenarios.forEach((scenario, index) => {
    const last = scenario.steps.at(-1)!;
    out.push('', `/// ${scenario.name}`);
    const aborting = abortingModule(last.call.call);
    out.push(last.expect === 'ok' ? '#[test]' : `#[test, expected_failure(abort_code = walrus_git::${aborting}::${last.expect})]`);
    out.push(`fun scenario_${String(index + 1).padStart(2, '0')}_${ident(scenario.name)}() {`);
    line(1, `let mut s = ts::begin(${addr(admin)});`, 'repository::init_for_testing(s.ctx());', 'market::init_for_testing(s.ctx());');
    const owners = new Map<string, string>();
    for (const [i, step] of scenario.steps.entries()) {
      const ok = step.expect === 'ok';
      const c = step.call;
      out.push('');
      line(1, `// ${i + 1}. ${step.sender} at ${step.clockMs} ms: ${c.call}${ok ? '' : ` aborts with ${step.expect}`}`);
      line(1, `s.next_tx(${addr(step.senderAddress)});`);
      const name = defines(step);
      if (c.call === 'register') owners.set(c.provider, step.senderAddress);
      line(1, name === null ? '{' : `let ${ok ? name : `_${name}`} = {`);
      line(2, 'let mut clock = clock::create_for_testing(s.ctx());', `clock.set_for_testing(${step.clockMs});`);
      const body = stepBody(step, owners, admin);
      const result = name === null ? null : body.pop()!;
      line(2, ...body, 'clock.destroy_for_testing();');
      if (result !== null) line(2, result);
      line(1, '};');
      if (!ok) continue;

      // Checks, in a transaction of their own: the coins paid, then the state.
      line(1, `s.next_tx(${addr(step.senderAddress)});`);
      if (c.call === 'register') line(1, `let cap_${ident(c.provider)} = ts::most_recent_id_for_address<ProviderCap>(${addr(step.senderAddress)}).destroy_some();`);
      if (step.pays.size === 0 && step.providers.size === 0 && step.leases.size === 0 && step.tallies.length === 0) continue;
      line(1, '{');
      for (const [actor, amount] of step.pays) {
        line(2, `let paid = s.take_from_address<Coin<SUI>>(${addr(file.actors.get(actor)!)});`, `assert_eq!(paid.value(), ${amount});`, 'paid.burn_for_testing();');
      }
      for (const [label, want] of step.providers) {
        line(2, `let provider = s.take_shared_by_id<Provider>(provider_${ident(label)});`);
        for (const key of ['stake', 'active_leases', 'completed_leases', 'provider_closed_leases', 'slashed'] as const) {
          if (want[key] !== undefined) line(2, `assert_eq!(provider.${key}(), ${want[key]});`);
        }
        if (want.unbonds_at_ms !== undefined) line(2, `assert_eq!(provider.unbonds_at_ms(), ${want.unbonds_at_ms === null ? 'option::none()' : `option::some(${want.unbonds_at_ms})`});`);
        line(2, 'ts::return_shared(provider);');
      }
      for (const [label, want] of step.leases) {
        line(2, `let lease = s.take_shared_by_id<Lease>(lease_${ident(label)});`);
        if (want.state !== undefined) line(2, `assert_eq!(lease.lease_state(), ${LEASE_STATES.indexOf(want.state)});`);
        for (const key of ['escrow', 'earned', 'settled_until_ms'] as const) if (want[key] !== undefined) line(2, `assert_eq!(lease.${key}(), ${want[key]});`);
        if (want.last_commit !== undefined) line(2, `assert_eq!(lease.last_deploy_commit(), ${want.last_commit === null ? 'option::none()' : `option::some(${bytes(want.last_commit)})`});`);
        if (want.url !== undefined) line(2, `assert_eq!(lease.lease_url(), ${str(want.url)});`);
        if (want.secrets_version !== undefined) line(2, `assert_eq!(lease_secrets::secrets_version(&lease), ${want.secrets_version});`);
        if (want.required !== undefined) line(2, `assert_eq!(attestation::required_reproductions(&lease), ${want.required});`);
        if (want.end !== undefined) {
          const end = want.end;
          line(2, `assert_eq!(lease.lease_end_reason(), ${end === null ? 0 : LeaseEndReason[end.reason]});`);
          line(2, `assert_eq!(lease.lease_ended_by(), ${end === null ? 'option::none()' : `option::some(${addr(end.byAddress)})`});`);
          line(2, `assert_eq!(lease.lease_ended_at_ms(), ${end === null ? 'option::none()' : `option::some(${end.at_ms})`});`);
        }
        line(2, 'ts::return_shared(lease);');
      }
      for (const want of step.tallies) {
        line(2, 'let market = s.take_shared<Market>();');
        line(2, `let (status, commitments, reveals) = attestation::tally_summary(&market, repo_${ident(want.repo)}, ${bytes(want.commit)}, ${bytes(want.build_key)});`);
        line(2, `assert_eq!(status, ${TALLY_STATUS_NAMES.indexOf(want.status)});`, `assert_eq!(commitments, ${want.commitments});`, `assert_eq!(reveals, ${want.reveals});`);
        line(2, 'ts::return_shared(market);');
      }
      line(1, '};');
    }
    line(1, 's.end();');
    out.push('}');
  });
  return `${out.join('\n')}\n`;
}
