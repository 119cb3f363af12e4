// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A row value (here a std::string read from a change) cannot be given to any telemetry key, not even
// one that carries a name.
// expect: replicant: telemetry values are never strings: a row value must not reach telemetry \(names are passed as replicant::table_ref or replicant::slot_name\)
#include <replicant/telemetry/telemetry.hpp>

#include <string>

namespace t = replicant::telemetry;

void report(t::dispatcher& d, const std::string& customer_email);

void report(t::dispatcher& d, const std::string& customer_email) {
#ifdef REPLICANT_COMPILE_FAIL
  t::emit<t::events::schema_change_additive>(d, t::keys::table = customer_email);
#else
  t::emit<t::events::schema_change_additive>(d, t::keys::table = replicant::table_ref{"public", "customers"});
  static_cast<void>(customer_email);
#endif
}
