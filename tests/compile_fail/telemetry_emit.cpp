// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// What telemetry::emit refuses at compile time (docs/telemetry.md): an event off the catalog, a key
// the event does not list, a key given twice, a value of another type than the key's, and above all
// a row value: a std::string read from a change cannot be given to any key, not even one that
// carries a name.
// expect not_an_event: replicant: not a telemetry event of the catalog \(use a type of replicant::telemetry::events, or declare your own: see replicant::telemetry::user_event\)
// expect user_event_named_replicant: replicant: a user's telemetry event must not begin with `replicant\.` \(that prefix is the library's events'; name it after your component\)
// expect off_list_key: replicant: key not allowed for this telemetry event \(it is in neither the measurements nor the metadata of the event's entry in replicant::telemetry::events\)
// expect key_twice: replicant: a telemetry key was given twice
// expect wrong_value_type: replicant: this value type is not allowed for this telemetry key \(see the key's value type in replicant/telemetry/telemetry\.hpp\)
// expect row_value: replicant: telemetry values are never strings: a row value must not reach telemetry \(names are passed as replicant::table_ref or replicant::slot_name\)
#include <replicant/telemetry/telemetry.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace t = replicant::telemetry;

namespace compile_fail {

// An event of one's own, not in replicant::telemetry::events, and not declared as a user's event.
struct orders_mirrored {};

// A user's event, declared as the library's are: emitted like them.
struct orders_mirrored_declared {
  static constexpr bool user_event = true;
  static constexpr std::string_view name = "shop.orders_mirrored";
  static constexpr auto measurements = boost::hana::tuple_t<t::keys::byte_size_t>;
  static constexpr auto metadata = boost::hana::tuple_t<t::keys::commit_lsn_t>;
};

// A user's event that takes the library's prefix.
struct impostor {
  static constexpr bool user_event = true;
  static constexpr std::string_view name = "replicant.sink.committed";
  static constexpr auto measurements = boost::hana::tuple_t<>;
  static constexpr auto metadata = boost::hana::tuple_t<t::keys::commit_lsn_t>;
};

// Each case uses some of the parameters.
inline void report(t::dispatcher& d, [[maybe_unused]] replicant::lsn at, [[maybe_unused]] std::uint64_t raw,
                   [[maybe_unused]] const std::string& customer_email) {
#if defined(REPLICANT_COMPILE_FAIL_not_an_event)
  t::emit<orders_mirrored>(d, t::keys::commit_lsn = at);
#elif defined(REPLICANT_COMPILE_FAIL_user_event_named_replicant)
  t::emit<impostor>(d, t::keys::commit_lsn = at);
#elif defined(REPLICANT_COMPILE_FAIL_off_list_key)
  // sink.committed carries no table.
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = at,
                                     t::keys::table = replicant::table_ref{"public", "customers"});
#elif defined(REPLICANT_COMPILE_FAIL_key_twice)
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = at, t::keys::commit_lsn = at);
#elif defined(REPLICANT_COMPILE_FAIL_wrong_value_type)
  // A commit LSN is an lsn, not a bare integer.
  t::emit<t::events::checkpoint_advanced>(d, t::keys::commit_lsn = raw);
#elif defined(REPLICANT_COMPILE_FAIL_row_value)
  t::emit<t::events::schema_change_additive>(d, t::keys::table = customer_email);
#else
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = at);
  t::emit<orders_mirrored_declared>(d, t::keys::commit_lsn = at, t::keys::byte_size = raw);
  t::emit<t::events::checkpoint_advanced>(d, t::keys::commit_lsn = replicant::lsn{raw});
  t::emit<t::events::schema_change_additive>(d, t::keys::table = replicant::table_ref{"public", "customers"});
#endif
}

}  // namespace compile_fail
