// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// What telemetry::emit refuses at compile time (docs/telemetry.md): an event off the catalog, a key
// the event does not list, a key given twice, a value of another type than the key's, and above all
// a row value: a std::string read from a change cannot be given to any key, not even one that
// carries a name.
// expect not_an_event: replicant: not a telemetry event of the catalog \(use a type of replicant::telemetry::events\)
// expect off_list_key: replicant: key not allowed for this telemetry event \(it is in neither the measurements nor the metadata of the event's entry in replicant::telemetry::events\)
// expect key_twice: replicant: a telemetry key was given twice
// expect wrong_value_type: replicant: this value type is not allowed for this telemetry key \(see the key's value type in replicant/telemetry/telemetry\.hpp\)
// expect row_value: replicant: telemetry values are never strings: a row value must not reach telemetry \(names are passed as replicant::table_ref or replicant::slot_name\)
#include <replicant/telemetry/telemetry.hpp>

#include <cstdint>
#include <string>

namespace t = replicant::telemetry;

namespace compile_fail {

// An event of one's own, not in replicant::telemetry::events.
struct orders_mirrored {};

// Each case uses some of the parameters.
inline void report(t::dispatcher& d, [[maybe_unused]] replicant::lsn at, [[maybe_unused]] std::uint64_t raw,
                   [[maybe_unused]] const std::string& customer_email) {
#if defined(REPLICANT_COMPILE_FAIL_not_an_event)
  t::emit<orders_mirrored>(d, t::keys::commit_lsn = at);
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
  t::emit<t::events::checkpoint_advanced>(d, t::keys::commit_lsn = replicant::lsn{raw});
  t::emit<t::events::schema_change_additive>(d, t::keys::table = replicant::table_ref{"public", "customers"});
#endif
}

}  // namespace compile_fail
