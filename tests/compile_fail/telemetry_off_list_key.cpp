// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// An event accepts only the keys its catalog entry lists: sink.committed carries no table.
// expect: replicant: key not allowed for this telemetry event \(it is in neither the measurements nor the metadata of the event's entry in replicant::telemetry::events\)
#include <replicant/telemetry/telemetry.hpp>

namespace t = replicant::telemetry;

void emit_committed(t::dispatcher& d, replicant::lsn at, const replicant::table_name& table);

void emit_committed(t::dispatcher& d, replicant::lsn at, const replicant::table_name& table) {
#ifdef REPLICANT_COMPILE_FAIL
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = at, t::keys::table = table);
#else
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = at);
  t::emit<t::events::schema_change_additive>(d, t::keys::table = table);
#endif
}
