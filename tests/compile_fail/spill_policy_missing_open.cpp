// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A pipeline over a spill policy without open() names the missing member.
// expect: replicant: SpillPolicy must provide `result<std::unique_ptr<spill_part>> open\(const spill_context&\)` \(a new part for each transaction that spills\)
#include <replicant/pipeline.hpp>

#include <memory>
#include <optional>

namespace compile_fail {

struct my_spill {
  [[nodiscard]] auto limits(const replicant::spill_context& ctx) const -> std::optional<replicant::spill_limits> {
    return replicant::spill_limits{ctx.budget / 4, ctx.budget * 16U};
  }
  auto prepare(const replicant::spill_context& /*ctx*/) -> replicant::result<void> { return {}; }
#ifndef REPLICANT_COMPILE_FAIL
  auto open(const replicant::spill_context& /*ctx*/) -> replicant::result<std::unique_ptr<replicant::spill_part>> {
    return replicant::fail(replicant::errc::io_failed);
  }
#endif
};

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint,
                                   compile_fail::my_spill, compile_fail::my_sink>;
