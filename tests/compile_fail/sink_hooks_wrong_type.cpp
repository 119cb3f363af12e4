// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The list of hooks is a replicant::hook, not a number that happens to hold the right bits.
// expect: replicant: Sink::hooks must be declared `static constexpr replicant::hook hooks = \.\.\.;`
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
#ifdef REPLICANT_COMPILE_FAIL
  static constexpr unsigned hooks = 4;
#else
  static constexpr replicant::hook hooks = replicant::hook::schema_change;
#endif
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
  auto handle_schema_change(const replicant::schema_change&) -> replicant::result<void> { return {}; }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
