/// Hand-written unit tests: every public function and every abort of walrus_git::repository. The shared vectors
/// (scenarios_tests.move, push_log_vectors_tests.move, name_vectors_tests.move) are generated from JSON.
#[test_only]
module walrus_git::repository_tests;

use std::{string::{Self, String}, unit_test::assert_eq};
use sui::{clock, event, test_scenario::{Self as ts, Scenario}};
use walrus_git::{
    events,
    pack::{Self, PackEntry},
    push_log,
    repository::{Self, Registry, Repository}
};

const OWNER: address = @0xa11ce;
const WRITER: address = @0xb0b;
const OTHER: address = @0xca201;
const MAIN: vector<u8> = b"refs/heads/main";
const DEV: vector<u8> = b"refs/heads/dev";

// === Helpers ===

fun s(bytes: vector<u8>): String {
    string::utf8(bytes)
}

fun fill(byte: u8, n: u64): vector<u8> {
    let mut v = vector[];
    let mut i = 0;
    while (i < n) {
        v.push_back(byte);
        i = i + 1;
    };
    v
}

fun a_pack(seed: u8): PackEntry {
    repository::new_pack_entry(vector[(seed as u256)], 100 + (seed as u64), fill(seed, 32))
}

/// A scenario with the registry and a repository "app" owned by OWNER, at the start of a fresh OWNER transaction.
fun setup(): (Scenario, ID) {
    let mut sc = ts::begin(OWNER);
    repository::init_for_testing(sc.ctx());
    sc.next_tx(OWNER);
    let mut registry = sc.take_shared<Registry>();
    let id = repository::create(&mut registry, s(b"app"), s(MAIN), sc.ctx());
    ts::return_shared(registry);
    sc.next_tx(OWNER);
    (sc, id)
}

/// `push` by `sender` at time `ms`, in a transaction of its own.
fun push_as(
    sc: &mut Scenario,
    id: ID,
    sender: address,
    names: vector<String>,
    olds: vector<Option<vector<u8>>>,
    news: vector<Option<vector<u8>>>,
    forces: vector<bool>,
    pack: Option<PackEntry>,
    ms: u64,
) {
    sc.next_tx(sender);
    let mut repo = sc.take_shared_by_id<Repository>(id);
    let mut clock = clock::create_for_testing(sc.ctx());
    clock.set_for_testing(ms);
    repository::push(&mut repo, names, olds, news, forces, pack, &clock, sc.ctx());
    clock.destroy_for_testing();
    ts::return_shared(repo);
}

/// A single-ref push: `old`/`new` none mean create/delete.
fun push_one(
    sc: &mut Scenario,
    id: ID,
    sender: address,
    name: vector<u8>,
    old: Option<vector<u8>>,
    new: Option<vector<u8>>,
    force: bool,
) {
    push_as(
        sc,
        id,
        sender,
        vector[s(name)],
        vector[old],
        vector[new],
        vector[force],
        option::none(),
        1000,
    );
}

fun repack_as(sc: &mut Scenario, id: ID, sender: address, pack: PackEntry, live_from: u64) {
    sc.next_tx(sender);
    let mut repo = sc.take_shared_by_id<Repository>(id);
    let clock = clock::create_for_testing(sc.ctx());
    repository::repack(&mut repo, pack, live_from, &clock, sc.ctx());
    clock.destroy_for_testing();
    ts::return_shared(repo);
}

fun repack_at_as(sc: &mut Scenario, id: ID, sender: address, pack: PackEntry, expected_seq: u64) {
    sc.next_tx(sender);
    let mut repo = sc.take_shared_by_id<Repository>(id);
    let clock = clock::create_for_testing(sc.ctx());
    repository::repack_at(&mut repo, pack, expected_seq, &clock, sc.ctx());
    clock.destroy_for_testing();
    ts::return_shared(repo);
}

fun add_writer_as(sc: &mut Scenario, id: ID, sender: address, writer: address) {
    sc.next_tx(sender);
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::add_writer(&mut repo, writer, sc.ctx());
    ts::return_shared(repo);
}

fun protect_as(sc: &mut Scenario, id: ID, sender: address, name: String) {
    sc.next_tx(sender);
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::protect_ref(&mut repo, name, sc.ctx());
    ts::return_shared(repo);
}

fun transfer_as(sc: &mut Scenario, id: ID, sender: address, to: address) {
    sc.next_tx(sender);
    let mut registry = sc.take_shared<Registry>();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::transfer_ownership(&mut registry, &mut repo, to, sc.ctx());
    ts::return_shared(repo);
    ts::return_shared(registry);
}

/// `refs/heads/b<n>` for n < 1000.
fun numbered_ref(n: u64): String {
    let mut name = b"refs/heads/b";
    name.push_back(((n / 100) as u8) + 0x30);
    name.push_back((((n / 10) % 10) as u8) + 0x30);
    name.push_back(((n % 10) as u8) + 0x30);
    s(name)
}

// === create ===

#[test]
fun create_registers_and_initialises() {
    let (mut sc, id) = setup();
    let registry = sc.take_shared<Registry>();
    assert_eq!(repository::repository_id(&registry, OWNER, s(b"app")), option::some(id));
    assert_eq!(repository::repository_id(&registry, WRITER, s(b"app")), option::none());
    ts::return_shared(registry);
    let repo = sc.take_shared_by_id<Repository>(id);
    assert_eq!(repo.name(), s(b"app"));
    assert_eq!(repo.owner(), OWNER);
    assert_eq!(repo.head(), s(MAIN));
    assert_eq!(repo.writers(), vector[]);
    assert_eq!(repo.protected_refs(), vector[]);
    assert_eq!(repo.hash_len(), 0);
    assert_eq!(repo.ref_count(), 0);
    assert_eq!(repo.pack_count(), 0);
    assert_eq!(repo.live_from(), 0);
    assert_eq!(repo.seq(), 0);
    assert_eq!(repo.log_head(), push_log::genesis());
    assert_eq!(repo.log_head().length(), 32);
    assert!(repo.is_writer(OWNER));
    assert!(!repo.is_writer(OTHER));
    ts::return_shared(repo);
    sc.end();
}

#[test]
fun create_emits_repository_created() {
    let mut sc = ts::begin(OWNER);
    repository::init_for_testing(sc.ctx());
    sc.next_tx(OWNER);
    let mut registry = sc.take_shared<Registry>();
    repository::create(&mut registry, s(b"app"), s(MAIN), sc.ctx());
    assert_eq!(event::events_by_type<events::RepositoryCreated>().length(), 1);
    ts::return_shared(registry);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EWrongVersion)]
fun create_on_an_old_registry_aborts() {
    let mut sc = ts::begin(OWNER);
    repository::init_for_testing(sc.ctx());
    sc.next_tx(OWNER);
    let mut registry = sc.take_shared<Registry>();
    repository::set_registry_version_for_testing(&mut registry, 0);
    repository::create(&mut registry, s(b"app"), s(MAIN), sc.ctx());
    ts::return_shared(registry);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidName)]
fun create_with_an_invalid_name_aborts() {
    let mut sc = ts::begin(OWNER);
    repository::init_for_testing(sc.ctx());
    sc.next_tx(OWNER);
    let mut registry = sc.take_shared<Registry>();
    repository::create(&mut registry, s(b"a/b"), s(MAIN), sc.ctx());
    ts::return_shared(registry);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidHead)]
fun create_with_an_invalid_head_aborts() {
    let mut sc = ts::begin(OWNER);
    repository::init_for_testing(sc.ctx());
    sc.next_tx(OWNER);
    let mut registry = sc.take_shared<Registry>();
    repository::create(&mut registry, s(b"app"), s(b"refs/heads/"), sc.ctx());
    ts::return_shared(registry);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENameTaken)]
fun create_twice_aborts() {
    let (mut sc, _id) = setup();
    let mut registry = sc.take_shared<Registry>();
    repository::create(&mut registry, s(b"app"), s(MAIN), sc.ctx());
    ts::return_shared(registry);
    sc.end();
}

// === new_pack_entry ===

#[test]
fun new_pack_entry_keeps_its_fields() {
    let entry = repository::new_pack_entry(vector[7, 8], 42, fill(9, 32));
    assert_eq!(pack::chunks(&entry), vector[7, 8]);
    assert_eq!(pack::size(&entry), 42);
    assert_eq!(pack::sha256(&entry), fill(9, 32));
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidPack)]
fun new_pack_entry_without_chunks_aborts() {
    repository::new_pack_entry(vector[], 42, fill(9, 32));
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidPack)]
fun new_pack_entry_of_size_zero_aborts() {
    repository::new_pack_entry(vector[1], 0, fill(9, 32));
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidPack)]
fun new_pack_entry_with_a_short_sha256_aborts() {
    repository::new_pack_entry(vector[1], 42, fill(9, 31));
}

// === push ===

#[test]
fun push_updates_refs_packs_seq_and_log() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN)],
        vector[option::none()],
        vector[option::some(fill(1, 20))],
        vector[false],
        option::some(a_pack(1)),
        1000,
    );
    assert_eq!(event::events_by_type<events::Pushed>().length(), 1);
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN), s(DEV)],
        vector[option::some(fill(1, 20)), option::none()],
        vector[option::some(fill(2, 20)), option::some(fill(3, 20))],
        vector[true, false],
        option::none(),
        2000,
    );
    sc.next_tx(OWNER);
    let repo = sc.take_shared_by_id<Repository>(id);
    assert_eq!(repo.ref_value(s(MAIN)), option::some(fill(2, 20)));
    assert_eq!(repo.ref_value(s(DEV)), option::some(fill(3, 20)));
    assert_eq!(repo.ref_value(s(b"refs/heads/none")), option::none());
    assert_eq!(repo.ref_count(), 2);
    assert_eq!(repo.hash_len(), 20);
    assert_eq!(repo.seq(), 2);
    assert_eq!(repo.pack_count(), 1);
    assert_eq!(repo.pack_at(0), option::some(a_pack(1)));
    assert_eq!(repo.pack_at(1), option::none());
    let first = push_log::new_record(
        id,
        1,
        0,
        OWNER,
        1000,
        vector[push_log::new_ref_update(s(MAIN), option::none(), option::some(fill(1, 20)), false)],
        option::some(a_pack(1)),
        0,
    );
    let second = push_log::new_record(
        id,
        2,
        0,
        OWNER,
        2000,
        vector[
            push_log::new_ref_update(
                s(MAIN),
                option::some(fill(1, 20)),
                option::some(fill(2, 20)),
                true,
            ),
            push_log::new_ref_update(s(DEV), option::none(), option::some(fill(3, 20)), false),
        ],
        option::none(),
        0,
    );
    let expected = push_log::next_head(&push_log::next_head(&push_log::genesis(), &first), &second);
    assert_eq!(repo.log_head(), expected);
    ts::return_shared(repo);
    sc.end();
}

#[test]
fun push_deletes_a_ref() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(1, 20)), false);
    push_one(&mut sc, id, OWNER, MAIN, option::some(fill(1, 20)), option::none(), false);
    sc.next_tx(OWNER);
    let repo = sc.take_shared_by_id<Repository>(id);
    assert_eq!(repo.ref_value(s(MAIN)), option::none());
    assert_eq!(repo.ref_count(), 0);
    assert_eq!(repo.hash_len(), 20);
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EWrongVersion)]
fun push_on_an_old_repository_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::set_version_for_testing(&mut repo, 0);
    ts::return_shared(repo);
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(1, 20)), false);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENotWriter)]
fun push_by_a_stranger_aborts() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OTHER, MAIN, option::none(), option::some(fill(1, 20)), false);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ELengthMismatch)]
fun push_with_unequal_vectors_aborts() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN)],
        vector[option::none()],
        vector[option::some(fill(1, 20))],
        vector[],
        option::none(),
        1000,
    );
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EEmptyUpdate)]
fun push_without_updates_aborts() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[],
        vector[],
        vector[],
        vector[],
        option::some(a_pack(1)),
        1000,
    );
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidRefName)]
fun push_of_an_invalid_ref_name_aborts() {
    let (mut sc, id) = setup();
    push_one(
        &mut sc,
        id,
        OWNER,
        b"refs/heads/a b",
        option::none(),
        option::some(fill(1, 20)),
        false,
    );
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EDuplicateRef)]
fun push_of_one_ref_twice_aborts() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN), s(MAIN)],
        vector[option::none(), option::none()],
        vector[option::some(fill(1, 20)), option::some(fill(2, 20))],
        vector[false, false],
        option::none(),
        1000,
    );
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidUpdate)]
fun push_of_none_to_none_aborts() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::none(), false);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EBadHashLen)]
fun push_of_a_21_byte_id_aborts() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(1, 21)), false);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EHashLenMismatch)]
fun push_of_a_32_byte_id_into_a_sha1_repository_aborts() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(1, 20)), false);
    push_one(&mut sc, id, OWNER, DEV, option::none(), option::some(fill(1, 32)), false);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ERefMismatch)]
fun push_with_a_stale_old_aborts() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(1, 20)), false);
    push_one(&mut sc, id, OWNER, MAIN, option::some(fill(5, 20)), option::some(fill(2, 20)), false);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ERefExists)]
fun push_creating_an_existing_ref_aborts() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(1, 20)), false);
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(2, 20)), false);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EProtected)]
fun writer_deleting_a_protected_ref_aborts() {
    let (mut sc, id) = setup();
    push_one(&mut sc, id, OWNER, MAIN, option::none(), option::some(fill(1, 20)), false);
    add_writer_as(&mut sc, id, OWNER, WRITER);
    protect_as(&mut sc, id, OWNER, s(MAIN));
    push_one(&mut sc, id, WRITER, MAIN, option::some(fill(1, 20)), option::none(), false);
    sc.end();
}

// === repack ===

#[test]
fun repack_appends_and_moves_live_from() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN)],
        vector[option::none()],
        vector[option::some(fill(1, 20))],
        vector[false],
        option::some(a_pack(1)),
        1000,
    );
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN)],
        vector[option::some(fill(1, 20))],
        vector[option::some(fill(2, 20))],
        vector[false],
        option::some(a_pack(2)),
        2000,
    );
    repack_as(&mut sc, id, OWNER, a_pack(9), 2);
    assert_eq!(event::events_by_type<events::Pushed>().length(), 1);
    sc.next_tx(OWNER);
    let repo = sc.take_shared_by_id<Repository>(id);
    assert_eq!(repo.pack_count(), 3);
    assert_eq!(repo.live_from(), 2);
    assert_eq!(repo.seq(), 3);
    assert_eq!(repo.pack_at(2), option::some(a_pack(9)));
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EWrongVersion)]
fun repack_on_an_old_repository_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::set_version_for_testing(&mut repo, 2);
    ts::return_shared(repo);
    repack_as(&mut sc, id, OWNER, a_pack(9), 0);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENotWriter)]
fun repack_by_a_stranger_aborts() {
    let (mut sc, id) = setup();
    repack_as(&mut sc, id, OTHER, a_pack(9), 0);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EBadLiveFrom)]
fun repack_past_the_new_pack_aborts() {
    let (mut sc, id) = setup();
    repack_as(&mut sc, id, OWNER, a_pack(9), 1);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EStaleRepack)]
fun repack_behind_a_pushed_pack_aborts() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN)],
        vector[option::none()],
        vector[option::some(fill(1, 20))],
        vector[false],
        option::some(a_pack(1)),
        1000,
    );
    // Built when the repository had no pack: the pushed pack would stay live before the consolidated one.
    repack_as(&mut sc, id, OWNER, a_pack(9), 0);
    sc.end();
}

// === repack_at ===

#[test]
fun repack_at_the_expected_seq_makes_the_new_pack_the_first_live_one() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN)],
        vector[option::none()],
        vector[option::some(fill(1, 20))],
        vector[false],
        option::some(a_pack(1)),
        1000,
    );
    repack_at_as(&mut sc, id, OWNER, a_pack(9), 1);
    sc.next_tx(OWNER);
    let repo = sc.take_shared_by_id<Repository>(id);
    assert_eq!(repo.pack_count(), 2);
    assert_eq!(repo.live_from(), 1);
    assert_eq!(repo.seq(), 2);
    assert_eq!(repo.pack_at(1), option::some(a_pack(9)));
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EStaleRepack)]
fun repack_at_a_past_seq_aborts() {
    let (mut sc, id) = setup();
    push_as(
        &mut sc,
        id,
        OWNER,
        vector[s(MAIN)],
        vector[option::none()],
        vector[option::some(fill(1, 20))],
        vector[false],
        option::none(),
        1000,
    );
    repack_at_as(&mut sc, id, OWNER, a_pack(9), 0);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EWrongVersion)]
fun repack_at_on_an_old_repository_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::set_version_for_testing(&mut repo, 2);
    ts::return_shared(repo);
    repack_at_as(&mut sc, id, OWNER, a_pack(9), 0);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENotWriter)]
fun repack_at_by_a_stranger_aborts() {
    let (mut sc, id) = setup();
    repack_at_as(&mut sc, id, OTHER, a_pack(9), 0);
    sc.end();
}

// === writers ===

#[test]
fun writers_are_added_and_removed() {
    let (mut sc, id) = setup();
    add_writer_as(&mut sc, id, OWNER, WRITER);
    assert_eq!(event::events_by_type<events::WriterAdded>().length(), 1);
    sc.next_tx(OWNER);
    let mut repo = sc.take_shared_by_id<Repository>(id);
    assert!(repo.is_writer(WRITER));
    assert_eq!(repo.writers(), vector[WRITER]);
    repository::remove_writer(&mut repo, WRITER, sc.ctx());
    assert_eq!(event::events_by_type<events::WriterRemoved>().length(), 1);
    assert!(!repo.is_writer(WRITER));
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENotOwner)]
fun add_writer_by_a_writer_aborts() {
    let (mut sc, id) = setup();
    add_writer_as(&mut sc, id, OWNER, WRITER);
    add_writer_as(&mut sc, id, WRITER, OTHER);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EWrongVersion)]
fun add_writer_on_an_old_repository_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::set_version_for_testing(&mut repo, 0);
    ts::return_shared(repo);
    add_writer_as(&mut sc, id, OWNER, WRITER);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EAlreadyWriter)]
fun add_writer_twice_aborts() {
    let (mut sc, id) = setup();
    add_writer_as(&mut sc, id, OWNER, WRITER);
    add_writer_as(&mut sc, id, OWNER, WRITER);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ETooManyWriters)]
fun the_101st_writer_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    let mut i = 1;
    while (i <= 101) {
        repository::add_writer(&mut repo, sui::address::from_u256((i as u256)), sc.ctx());
        i = i + 1;
    };
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENotAWriter)]
fun remove_writer_of_a_stranger_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::remove_writer(&mut repo, OTHER, sc.ctx());
    ts::return_shared(repo);
    sc.end();
}

// === protected refs and HEAD ===

#[test]
fun refs_are_protected_and_unprotected() {
    let (mut sc, id) = setup();
    protect_as(&mut sc, id, OWNER, s(MAIN));
    assert_eq!(event::events_by_type<events::RefProtected>().length(), 1);
    sc.next_tx(OWNER);
    let mut repo = sc.take_shared_by_id<Repository>(id);
    assert!(repo.is_protected(s(MAIN)));
    assert_eq!(repo.protected_refs(), vector[s(MAIN)]);
    repository::unprotect_ref(&mut repo, s(MAIN), sc.ctx());
    assert_eq!(event::events_by_type<events::RefUnprotected>().length(), 1);
    assert!(!repo.is_protected(s(MAIN)));
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidRefName)]
fun protect_an_invalid_ref_aborts() {
    let (mut sc, id) = setup();
    protect_as(&mut sc, id, OWNER, s(b"main"));
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EAlreadyProtected)]
fun protect_twice_aborts() {
    let (mut sc, id) = setup();
    protect_as(&mut sc, id, OWNER, s(MAIN));
    protect_as(&mut sc, id, OWNER, s(MAIN));
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ETooManyProtected)]
fun the_65th_protected_ref_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    let mut i = 0;
    while (i <= 64) {
        repository::protect_ref(&mut repo, numbered_ref(i), sc.ctx());
        i = i + 1;
    };
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENotProtected)]
fun unprotect_an_unprotected_ref_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::unprotect_ref(&mut repo, s(MAIN), sc.ctx());
    ts::return_shared(repo);
    sc.end();
}

#[test]
fun set_head_changes_head() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::set_head(&mut repo, s(DEV), sc.ctx());
    assert_eq!(event::events_by_type<events::HeadSet>().length(), 1);
    assert_eq!(repo.head(), s(DEV));
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EInvalidHead)]
fun set_head_to_an_invalid_ref_aborts() {
    let (mut sc, id) = setup();
    let mut repo = sc.take_shared_by_id<Repository>(id);
    repository::set_head(&mut repo, s(b"refs/heads/x."), sc.ctx());
    ts::return_shared(repo);
    sc.end();
}

// === ownership ===

#[test]
fun transfer_ownership_rekeys_the_registry() {
    let (mut sc, id) = setup();
    add_writer_as(&mut sc, id, OWNER, WRITER);
    transfer_as(&mut sc, id, OWNER, WRITER);
    assert_eq!(event::events_by_type<events::OwnershipTransferred>().length(), 1);
    sc.next_tx(WRITER);
    let registry = sc.take_shared<Registry>();
    assert_eq!(repository::repository_id(&registry, OWNER, s(b"app")), option::none());
    assert_eq!(repository::repository_id(&registry, WRITER, s(b"app")), option::some(id));
    ts::return_shared(registry);
    let repo = sc.take_shared_by_id<Repository>(id);
    assert_eq!(repo.owner(), WRITER);
    assert_eq!(repo.writers(), vector[]);
    assert!(!repo.is_writer(OWNER));
    ts::return_shared(repo);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENotOwner)]
fun transfer_by_a_stranger_aborts() {
    let (mut sc, id) = setup();
    transfer_as(&mut sc, id, OTHER, OTHER);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ESameOwner)]
fun transfer_to_the_owner_aborts() {
    let (mut sc, id) = setup();
    transfer_as(&mut sc, id, OWNER, OWNER);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::ENameTaken)]
fun transfer_onto_a_taken_name_aborts() {
    let (mut sc, id) = setup();
    sc.next_tx(OTHER);
    let mut registry = sc.take_shared<Registry>();
    repository::create(&mut registry, s(b"app"), s(MAIN), sc.ctx());
    ts::return_shared(registry);
    transfer_as(&mut sc, id, OWNER, OTHER);
    sc.end();
}

#[test, expected_failure(abort_code = walrus_git::repository::EWrongVersion)]
fun transfer_on_an_old_registry_aborts() {
    let (mut sc, id) = setup();
    let mut registry = sc.take_shared<Registry>();
    repository::set_registry_version_for_testing(&mut registry, 0);
    ts::return_shared(registry);
    transfer_as(&mut sc, id, OWNER, OTHER);
    sc.end();
}
