// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Sink-owned batches need handle_batch; a per-transaction sink is not silently used one by one.
// expect: replicant: sink_owned_batches: Sink must provide `result<lsn> handle_batch\(std::span<const transaction>\)` \(persists the batch and its highest commit LSN atomically\)
#include <replicant/pipeline.hpp>

#include <optional>
#include <span>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#ifndef REPLICANT_COMPILE_FAIL
  auto handle_batch(std::span<const replicant::transaction> txns) -> replicant::result<replicant::lsn> {
    return txns.back().commit_lsn();
  }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_batches, replicant::no_spill,
                                   compile_fail::my_sink>;
