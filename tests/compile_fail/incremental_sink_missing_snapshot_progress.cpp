// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A sink that owns its checkpoint and opts into the incremental snapshot must keep the snapshot's
// progress: without snapshot_progress() the checklist names the missing member.
// expect: replicant: enable_incremental_snapshot: Sink must provide `result<std::optional<std::string>> snapshot_progress\(\)` \(returns the progress token it stored atomically with its last chunk\)
// snapshot_progress\(\)`
#include <replicant/pipeline.hpp>

#include <optional>
#include <string>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
  auto handle_snapshot(const replicant::snapshot_batch&, const replicant::snapshot_context&)
      -> replicant::result<void> {
    return {};
  }
#ifndef REPLICANT_COMPILE_FAIL
  auto snapshot_progress() -> replicant::result<std::optional<std::string>> { return std::optional<std::string>{}; }
#endif
};

}  // namespace compile_fail

template <>
inline constexpr bool replicant::enable_incremental_snapshot<compile_fail::my_sink> = true;

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
