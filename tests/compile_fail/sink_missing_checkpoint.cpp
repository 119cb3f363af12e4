// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A pipeline over a sink without checkpoint() names the missing member.
// expect: replicant: Sink must provide `result<std::optional<lsn>> checkpoint\(\)` \(returns the commit LSN it last persisted durably, or std::nullopt; called on every connect to resume after it\)
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
#ifndef REPLICANT_COMPILE_FAIL
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
#endif
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
