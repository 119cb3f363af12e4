// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A spill policy of one's own is checked member by member (docs/spill.md): each case breaks one
// requirement, and the checklist names it. The pipeline evaluates this checklist
// (spill_policy_missing_open.cpp proves it through a pipeline); these cases ask it directly, which
// costs a fraction of a pipeline's compile.
// expect not_movable: replicant: SpillPolicy must be a move-constructible object type \(the pipeline keeps its own copy\)
// expect limits: replicant: SpillPolicy must provide `std::optional<spill_limits> limits\(const spill_context&\) const` \(when to spill and how much, or std::nullopt to never spill\)
// expect prepare: replicant: SpillPolicy must provide `result<void> prepare\(const spill_context&\)` \(called at the start of every session, before anything spills\)
#include <replicant/spill/policy.hpp>

#include <memory>
#include <optional>

namespace compile_fail {

struct my_spill {
  my_spill() = default;
#ifdef REPLICANT_COMPILE_FAIL_not_movable
  // The pipeline keeps its own copy of the policy: one it cannot move does not fit.
  my_spill(my_spill&&) = delete;
#endif
#ifndef REPLICANT_COMPILE_FAIL_limits
  [[nodiscard]] auto limits(const replicant::spill_context& ctx) const -> std::optional<replicant::spill_limits> {
    return replicant::spill_limits{ctx.budget / 4, ctx.budget * 16U};
  }
#endif
#ifndef REPLICANT_COMPILE_FAIL_prepare
  auto prepare(const replicant::spill_context& /*ctx*/) -> replicant::result<void> { return {}; }
#endif
  auto open(const replicant::spill_context& /*ctx*/) -> replicant::result<std::unique_ptr<replicant::spill_part>> {
    return replicant::fail(replicant::errc::io_failed);
  }
};

}  // namespace compile_fail

static_assert(replicant::detail::check_spill_policy<compile_fail::my_spill>());
