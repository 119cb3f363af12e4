// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A key may be given once per event.
// expect: replicant: a telemetry key was given twice
#include <replicant/telemetry/telemetry.hpp>

namespace t = replicant::telemetry;

void committed(t::dispatcher& d, replicant::lsn at, replicant::lsn other);

void committed(t::dispatcher& d, replicant::lsn at, replicant::lsn other) {
#ifdef REPLICANT_COMPILE_FAIL
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = at, t::keys::commit_lsn = other);
#else
  t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = at);
  static_cast<void>(other);
#endif
}
