// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Batches belong to the sink-owned batch policy: a library-owned checkpoint delivers one
// transaction at a time, so a sink offering only handle_batch is told where batches go.
// expect: replicant: lib_owned_checkpoint delivers one transaction at a time: handle_batch is for sink_owned_batches; provide `result<void> handle_transaction\(const transaction&\)`
#include <replicant/pipeline.hpp>

#include <optional>
#include <span>

namespace compile_fail {

struct memory_store {
  std::optional<replicant::lsn> at;
  auto read(const replicant::slot_name&) -> replicant::result<std::optional<replicant::lsn>> { return at; }
  auto write(const replicant::slot_name&, replicant::lsn to) -> replicant::result<void> {
    at = to;
    return {};
  }
};

struct my_sink {
#ifdef REPLICANT_COMPILE_FAIL
  auto handle_batch(std::span<const replicant::transaction> txns) -> replicant::result<replicant::lsn> {
    return txns.back().commit_lsn();
  }
#else
  auto handle_transaction(const replicant::transaction&) -> replicant::result<void> { return {}; }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder,
                                   replicant::lib_owned_checkpoint<compile_fail::memory_store>, replicant::no_spill,
                                   compile_fail::my_sink>;
