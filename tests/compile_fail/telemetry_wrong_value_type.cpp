// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Each key takes its own value type: a commit LSN is an lsn, not a bare integer.
// expect: replicant: this value type is not allowed for this telemetry key \(see the key's value type in replicant/telemetry/telemetry\.hpp\)
#include <replicant/telemetry/telemetry.hpp>

#include <cstdint>

namespace t = replicant::telemetry;

void advanced(t::dispatcher& d, std::uint64_t raw);

void advanced(t::dispatcher& d, std::uint64_t raw) {
#ifdef REPLICANT_COMPILE_FAIL
  t::emit<t::events::checkpoint_advanced>(d, t::keys::commit_lsn = raw);
#else
  t::emit<t::events::checkpoint_advanced>(d, t::keys::commit_lsn = replicant::lsn{raw});
#endif
}
