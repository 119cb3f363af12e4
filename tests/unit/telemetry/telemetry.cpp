// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/telemetry/telemetry.hpp>

#include <boost/test/unit_test.hpp>

#include <boost/hana/for_each.hpp>
#include <boost/hana/size.hpp>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(telemetry_telemetry_tests)

namespace hana = boost::hana;
namespace t = replicant::telemetry;
using namespace replicant::literals;
using namespace std::chrono_literals;

namespace {

// Everything a handler saw, copied out of the event (the record itself is a view).
struct seen {
  std::string name;
  std::vector<std::string> measurements;  // "key=value"
  std::vector<std::string> metadata;
};

auto copy(const t::event_record& e) -> seen {
  seen s{std::string(e.name), {}, {}};
  for (const auto& f : e.measurements) s.measurements.push_back(std::string(f.key) + "=" + t::to_string(f.value));
  for (const auto& f : e.metadata) s.metadata.push_back(std::string(f.key) + "=" + t::to_string(f.value));
  return s;
}

template <class Key>
auto key_name(hana::basic_type<Key>) -> std::string_view {
  return Key::name;
}

// A policy's event of its own (docs/telemetry.md, "Events of your own").
struct store_skipped : t::event_spec<"custom_policies.store_skipped", t::measures<t::keys::byte_size_t>,
                                     t::carries<t::keys::slot_name_t, t::keys::commit_lsn_t>> {
  static constexpr bool user_event = true;
};
static_assert(t::user_event<store_skipped>);
static_assert(!t::user_event<t::events::sink_committed>);

// The same event with its members spelled out, as the concept also accepts.
struct store_skipped_spelled_out {
  static constexpr bool user_event = true;
  static constexpr std::string_view name = "custom_policies.store_skipped";
  static constexpr auto measurements = hana::tuple_t<t::keys::byte_size_t>;
  static constexpr auto metadata = hana::tuple_t<t::keys::slot_name_t, t::keys::commit_lsn_t>;
};
static_assert(t::user_event<store_skipped_spelled_out>);

}  // namespace

BOOST_AUTO_TEST_SUITE(catalog)

BOOST_AUTO_TEST_CASE(has_the_thirty_events_of_the_reference_the_heartbeat_the_lag_warning_and_command_errors) {
  static_assert(decltype(hana::size(t::catalog))::value == 34);
  BOOST_TEST(t::event_names.size() == 34U);
  const std::set<std::string_view> names(t::event_names.begin(), t::event_names.end());
  BOOST_TEST(names.size() == 34U);  // unique
  const std::set<std::string_view> reference{"replicant.connection.connected",
                                             "replicant.connection.disconnected",
                                             "replicant.connection.slot_active",
                                             "replicant.connection.slot_invalidated",
                                             "replicant.connection.session_identity_rejected",
                                             "replicant.connection.command_error_halt",
                                             "replicant.checkpoint.advanced",
                                             "replicant.checkpoint_store.read",
                                             "replicant.checkpoint_store.written",
                                             "replicant.checkpoint_store.batch_flushed",
                                             "replicant.checkpoint_store.retrying",
                                             "replicant.checkpoint_store.failed",
                                             "replicant.transaction.assembled",
                                             "replicant.sink.committed",
                                             "replicant.sink.batch_committed",
                                             "replicant.sink.failed",
                                             "replicant.message.received",
                                             "replicant.schema_change.additive",
                                             "replicant.schema_change.halted",
                                             "replicant.snapshot.started",
                                             "replicant.snapshot.resumed",
                                             "replicant.snapshot.table_completed",
                                             "replicant.snapshot.chunk_completed",
                                             "replicant.snapshot.chunk_retried",
                                             "replicant.snapshot.completed",
                                             "replicant.snapshot.failed",
                                             "replicant.stream.committed",
                                             "replicant.stream.aborted",
                                             "replicant.stream.spilled",
                                             "replicant.stream.spill_exhausted",
                                             "replicant.connection.heartbeat",
                                             "replicant.sink.lagging",
                                             "replicant.connection.command_error",
                                             "replicant.connection.side_check_failed"};
  BOOST_TEST((names == reference));
}

BOOST_AUTO_TEST_CASE(metadata_allowlist_is_exactly_the_thirteen_keys) {
  std::set<std::string_view> allow;
  hana::for_each(t::metadata_keys, [&](auto k) { allow.insert(key_name(k)); });
  const std::set<std::string_view> expected{"commit_lsn", "change_count", "byte_size",     "lag_ms", "duration",
                                            "attempt",    "max_retries",  "transactional", "table",  "slot_name",
                                            "reason",     "error_class",  "kind"};
  BOOST_TEST((allow == expected));
}

BOOST_AUTO_TEST_CASE(every_event_stays_within_the_allowlists) {
  std::set<std::string_view> allow;
  hana::for_each(t::metadata_keys, [&](auto k) { allow.insert(key_name(k)); });
  std::set<std::string_view> measures;
  hana::for_each(t::measurement_keys, [&](auto k) { measures.insert(key_name(k)); });
  std::size_t events = 0;
  hana::for_each(t::catalog, [&](auto e) {
    using event = typename decltype(e)::type;
    ++events;
    BOOST_TEST_CONTEXT(event::name) {
      BOOST_TEST(event::name.rfind("replicant.", 0) == 0U);
      std::set<std::string_view> own;
      hana::for_each(event::metadata, [&](auto k) {
        BOOST_TEST(allow.count(key_name(k)) == 1U, key_name(k));
        BOOST_TEST(own.insert(key_name(k)).second);
      });
      hana::for_each(event::measurements, [&](auto k) {
        BOOST_TEST(measures.count(key_name(k)) == 1U, key_name(k));
        BOOST_TEST(own.insert(key_name(k)).second, "in both lists: " << key_name(k));
      });
    }
  });
  BOOST_TEST(events == 34U);
}

// The secret can only reach telemetry as a string, and no key takes one.
BOOST_AUTO_TEST_CASE(no_key_accepts_a_string_or_a_foreign_type) {
  const auto refuses_text = [](auto k) {
    using key = typename decltype(k)::type;
    static_assert(!t::accepts<key, std::string>);
    static_assert(!t::accepts<key, const std::string&>);
    static_assert(!t::accepts<key, std::string_view>);
    static_assert(!t::accepts<key, const char*>);
    static_assert(!t::accepts<key, char*>);
    static_assert(!t::accepts<key, const char(&)[7]>);
    static_assert(!t::accepts<key, std::u8string>);
    static_assert(!t::accepts<key, char>);
    static_assert(!t::accepts<key, std::vector<char>>);
    static_assert(!t::accepts<key, std::vector<std::byte>>);
    static_assert(!t::accepts<key, void*>);
    static_assert(!t::accepts<key, double>);
    BOOST_TEST(true);
  };
  hana::for_each(t::metadata_keys, refuses_text);
  hana::for_each(t::measurement_keys, refuses_text);
}

BOOST_AUTO_TEST_CASE(each_key_accepts_its_own_types_only) {
  static_assert(t::accepts<t::keys::commit_lsn_t, replicant::lsn>);
  static_assert(!t::accepts<t::keys::commit_lsn_t, std::uint64_t>);  // a count is not a position
  static_assert(t::accepts<t::keys::change_count_t, std::size_t>);
  static_assert(t::accepts<t::keys::byte_size_t, int>);
  static_assert(!t::accepts<t::keys::byte_size_t, bool>);
  static_assert(!t::accepts<t::keys::byte_size_t, replicant::lsn>);
  static_assert(t::accepts<t::keys::duration_t, std::chrono::milliseconds>);
  static_assert(!t::accepts<t::keys::duration_t, long>);  // a bare number has no unit
  static_assert(t::accepts<t::keys::lag_ms_t, std::chrono::seconds>);
  static_assert(!t::accepts<t::keys::lag_ms_t, int>);
  static_assert(t::accepts<t::keys::transactional_t, bool>);
  static_assert(!t::accepts<t::keys::transactional_t, int>);
  static_assert(t::accepts<t::keys::table_t, replicant::table_ref>);
  static_assert(t::accepts<t::keys::table_t, const replicant::table_name&>);
  static_assert(t::accepts<t::keys::slot_name_t, replicant::slot_name>);
  static_assert(t::accepts<t::keys::reason_t, replicant::halt_reason>);
  static_assert(!t::accepts<t::keys::reason_t, replicant::errc>);
  static_assert(t::accepts<t::keys::error_class_t, replicant::errc>);
  static_assert(t::accepts<t::keys::kind_t, t::kind>);
  static_assert(!t::accepts<t::keys::kind_t, int>);
  static_assert(t::accepts<t::keys::lag_bytes_t, std::int64_t>);
  BOOST_TEST(true);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dispatcher)

BOOST_AUTO_TEST_CASE(emit_without_handlers_builds_nothing) {
  t::dispatcher d;
  BOOST_TEST(!d.has_handlers());
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = "0/10"_lsn, t::keys::duration = 5ms);
  int calls = 0;
  const auto id = d.attach([&](const t::event_record&) { ++calls; });
  BOOST_TEST(d.has_handlers());
  BOOST_TEST(d.detach(id));
  BOOST_TEST(!d.detach(id));
  BOOST_TEST(!d.has_handlers());
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = "0/10"_lsn);
  BOOST_TEST(calls == 0);
}

BOOST_AUTO_TEST_CASE(a_user_event_reaches_handlers_as_the_catalog_s_do) {
  t::dispatcher d;
  std::vector<seen> got;
  d.attach([&](const t::event_record& e) { got.push_back(copy(e)); });
  const auto slot = replicant::slot_name::make("orders_cdc").value();
  t::emit<store_skipped>(d, t::keys::slot_name = slot, t::keys::byte_size = std::size_t{4096},
                         t::keys::commit_lsn = "0/16B3748"_lsn);
  t::emit<store_skipped_spelled_out>(d, t::keys::slot_name = slot, t::keys::byte_size = std::size_t{4096},
                                     t::keys::commit_lsn = "0/16B3748"_lsn);
  BOOST_TEST_REQUIRE(got.size() == 2U);
  for (const seen& e : got) {
    BOOST_TEST(e.name == "custom_policies.store_skipped");
    BOOST_TEST(e.measurements == std::vector<std::string>{"byte_size=4096"});
    BOOST_TEST((e.metadata == std::vector<std::string>{"slot_name=orders_cdc", "commit_lsn=0/16B3748"}));
  }
}

BOOST_AUTO_TEST_CASE(emit_reaches_handlers_with_the_right_keys) {
  t::dispatcher d;
  std::vector<seen> got;
  d.attach([&](const t::event_record& e) { got.push_back(copy(e)); });

  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = "16/B374D848"_lsn, t::keys::duration = 1500us);
  BOOST_TEST_REQUIRE(got.size() == 1U);
  BOOST_TEST(got[0].name == "replicant.sink.committed");
  BOOST_TEST(got[0].measurements == std::vector<std::string>{"duration=1500000ns"});
  BOOST_TEST(got[0].metadata == std::vector<std::string>{"commit_lsn=16/B374D848"});

  const auto slot = replicant::slot_name::make("orders_cdc").value();
  const std::size_t attempts = 5;
  t::emit<t::events::connection_command_error_halt>(d, t::keys::attempt = attempts, t::keys::max_retries = 5U,
                                                    t::keys::slot_name = slot,
                                                    t::keys::error_class = replicant::errc::server_error);
  BOOST_TEST_REQUIRE(got.size() == 2U);
  BOOST_TEST(got[1].measurements.empty());
  BOOST_TEST((got[1].metadata == std::vector<std::string>{"attempt=5", "max_retries=5", "slot_name=orders_cdc",
                                                          "error_class=server_error"}));

  const replicant::table_name orders{"public", "orders"};
  t::emit<t::events::schema_change_halted>(d, t::keys::table = orders, t::keys::kind = t::kind::destructive,
                                           t::keys::reason = replicant::halt_reason::schema_change_destructive);
  BOOST_TEST_REQUIRE(got.size() == 3U);
  BOOST_TEST((got[2].metadata ==
              std::vector<std::string>{"table=public.orders", "kind=destructive", "reason=schema_change_destructive"}));

  // The lag halt rides connection.disconnected: a signed measurement plus the reason.
  t::emit<t::events::connection_disconnected>(d, t::keys::reason = replicant::halt_reason::sink_too_slow,
                                              t::keys::lag_bytes = std::int64_t{-42});
  BOOST_TEST_REQUIRE(got.size() == 4U);
  BOOST_TEST(got[3].measurements == std::vector<std::string>{"lag_bytes=-42"});
  BOOST_TEST(got[3].metadata == std::vector<std::string>{"reason=sink_too_slow"});

  t::emit<t::events::message_received>(d, t::keys::transactional = false, t::keys::byte_size = 12);
  BOOST_TEST_REQUIRE(got.size() == 5U);
  BOOST_TEST((got[4].metadata == std::vector<std::string>{"transactional=false", "byte_size=12"}));

  t::emit<t::events::connection_slot_active>(d);  // no keys at all is fine
  BOOST_TEST_REQUIRE(got.size() == 6U);
  BOOST_TEST(got[5].metadata.empty());

  // Every connect says which kind of node it reached.
  t::emit<t::events::connection_connected>(d, t::keys::kind = t::kind::standby);
  BOOST_TEST_REQUIRE(got.size() == 7U);
  BOOST_TEST(got[6].name == "replicant.connection.connected");
  BOOST_TEST(got[6].metadata == std::vector<std::string>{"kind=standby"});
}

BOOST_AUTO_TEST_CASE(record_gives_typed_values_by_key) {
  t::dispatcher d;
  bool checked = false;
  d.attach([&](const t::event_record& e) {
    const auto* at = e.find("commit_lsn");
    BOOST_TEST_REQUIRE(at != nullptr);
    BOOST_TEST((std::get<replicant::lsn>(*at) == "0/10"_lsn));
    const auto* took = e.find("duration");
    BOOST_TEST_REQUIRE(took != nullptr);
    BOOST_TEST(std::get<std::chrono::nanoseconds>(*took).count() == 2'000'000'000);
    const auto* lag = e.find("lag_ms");
    BOOST_TEST(lag == nullptr);
    BOOST_TEST(t::to_string(e) == "replicant.snapshot.completed duration=2000000000ns commit_lsn=0/10 change_count=7");
    checked = true;
  });
  t::emit<t::events::snapshot_completed>(d, t::keys::commit_lsn = "0/10"_lsn, t::keys::change_count = 7,
                                         t::keys::duration = 2s);
  BOOST_TEST(checked);
}

BOOST_AUTO_TEST_CASE(incremental_snapshot_events_carry_their_counts) {
  t::dispatcher d;
  std::vector<std::string> got;
  d.attach([&](const t::event_record& e) { got.push_back(t::to_string(e)); });
  t::emit<t::events::snapshot_resumed>(d, t::keys::slot_name = replicant::slot_name::make("orders").value(),
                                       t::keys::change_count = 4000);
  const replicant::table_ref items{"public", "items"};
  t::emit<t::events::snapshot_chunk_completed>(d, t::keys::table = items, t::keys::change_count = 1024);
  t::emit<t::events::snapshot_chunk_retried>(d, t::keys::table = items,
                                             t::keys::reason = replicant::halt_reason::snapshot_table_contended,
                                             t::keys::attempt = 2);
  BOOST_TEST_REQUIRE(got.size() == 3U);
  BOOST_TEST(got[0] == "replicant.snapshot.resumed slot_name=orders change_count=4000");
  BOOST_TEST(got[1] == "replicant.snapshot.chunk_completed table=public.items change_count=1024");
  BOOST_TEST(got[2] == "replicant.snapshot.chunk_retried table=public.items reason=snapshot_table_contended attempt=2");
}

BOOST_AUTO_TEST_CASE(lag_ms_is_whole_milliseconds) {
  const t::binding<t::keys::lag_ms_t> b = t::keys::lag_ms = 2500us;
  BOOST_TEST(std::get<std::int64_t>(b.value) == 2);
  const t::binding<t::keys::lag_ms_t> m = t::keys::lag_ms = 3min;
  BOOST_TEST(std::get<std::int64_t>(m.value) == 180000);
}

BOOST_AUTO_TEST_CASE(a_throwing_handler_is_detached_and_others_still_run) {
  t::dispatcher d;
  int bad_calls = 0;
  int good_calls = 0;
  d.attach([&](const t::event_record&) {
    ++bad_calls;
    throw std::runtime_error("handler bug");
  });
  d.attach([&](const t::event_record&) { ++good_calls; });
  t::emit<t::events::snapshot_resumed>(d);
  t::emit<t::events::snapshot_resumed>(d);
  BOOST_TEST(bad_calls == 1);
  BOOST_TEST(good_calls == 2);
  BOOST_TEST(d.has_handlers());
}

BOOST_AUTO_TEST_CASE(a_handler_may_detach_itself) {
  t::dispatcher d;
  int calls = 0;
  t::handler_id self{};
  self = d.attach([&](const t::event_record&) {
    ++calls;
    BOOST_TEST(d.detach(self));
  });
  t::emit<t::events::stream_aborted>(d);
  t::emit<t::events::stream_aborted>(d);
  BOOST_TEST(calls == 1);
  BOOST_TEST(!d.has_handlers());
}

// Two emitting threads (connection and applier) while handlers come and go.
BOOST_AUTO_TEST_CASE(emits_from_two_threads_while_handlers_change) {
  t::dispatcher d;
  // Boost.Test assertions are not thread-safe: handlers only count, the checks come after join().
  std::atomic<long> delivered{0};
  std::atomic<long> malformed{0};
  const auto counter = [&](const t::event_record& e) {
    if (e.name != "replicant.checkpoint.advanced" || e.metadata.size() != 2U) malformed.fetch_add(1);
    delivered.fetch_add(1, std::memory_order_relaxed);
  };
  d.attach(counter);
  std::atomic<bool> stop{false};
  const auto emitter = [&] {
    long n = 0;
    while (!stop.load(std::memory_order_relaxed) || n < 10000) {
      t::emit<t::events::checkpoint_advanced>(d, t::keys::commit_lsn = replicant::lsn{static_cast<std::uint64_t>(n)},
                                              t::keys::kind = t::kind::idle);
      ++n;
    }
  };
  std::thread a(emitter);
  std::thread b(emitter);
  for (int i = 0; i < 200; ++i) d.detach(d.attach(counter));
  stop = true;
  a.join();
  b.join();
  BOOST_TEST(delivered.load() >= 20000);
  BOOST_TEST(malformed.load() == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(values)

BOOST_AUTO_TEST_CASE(display_forms_are_value_free_names) {
  BOOST_TEST(t::to_string(t::field_value(replicant::halt_reason::spill_exhausted)) == "spill_exhausted");
  BOOST_TEST(t::to_string(t::field_value(replicant::errc::io_failed)) == "io_failed");
  BOOST_TEST(t::to_string(t::field_value(t::kind::wal_level_insufficient)) == "wal_level_insufficient");
  BOOST_TEST(t::to_string(t::field_value(true)) == "true");
  BOOST_TEST(t::to_string(t::field_value(replicant::table_ref{"a b", "c"})) == "\"a b\".c");
  std::set<std::string_view> kinds;
  for (const t::kind k : t::kinds) BOOST_TEST(kinds.insert(t::to_string(k)).second);
  BOOST_TEST(kinds.count("unknown") == 0U);
}

// slot_invalidated's kind is the class of the halt, by the same name.
BOOST_AUTO_TEST_CASE(each_slot_invalidation_class_is_the_kind_of_its_name) {
  for (const replicant::slot_invalidation c : replicant::slot_invalidations) {
    BOOST_TEST(t::to_string(t::to_kind(c)) == replicant::to_string(c));
  }
  static_assert(t::to_kind(replicant::slot_invalidation::idle_timeout) == t::kind::idle_timeout);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // telemetry_telemetry_tests
