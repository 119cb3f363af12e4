// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A checkpoint policy of one's own is checked operation by operation (docs/checkpoint/writing_a_policy.md,
// "The compile-time checklist"): each case leaves one out, and the checklist names it. The pipeline
// evaluates this checklist (checkpoint_policy_missing_flush.cpp proves it through a pipeline); these
// cases ask it directly, which costs a fraction of a pipeline's compile. One case (rejects_silently)
// has every operation, but a checklist that says nothing of a sink its acceptance rejects.
// expect not_movable: replicant: CheckpointPolicy must be move-constructible \(the pipeline keeps its own copy of the settings\)
// expect no_delivery: replicant: CheckpointPolicy must provide `template <class Sink> class delivery`, constructible from `CheckpointPolicy&` \(carries the policy's behaviour for one connection\)
// expect no_check_sink: replicant: CheckpointPolicy must provide `template <class Sink> static constexpr bool check_sink\(\)` \(one static_assert per sink member it requires\)
// expect no_accepts: replicant: CheckpointPolicy must provide `template <class Sink> static constexpr bool accepts` \(whether a sink fits the policy\)
// expect no_resume: replicant: CheckpointPolicy::delivery must provide `result<std::optional<lsn>> resume\(checkpoint_context<Sink>&\)` \(where a run resumes: the sink's checkpoint, or a store's\)
// expect no_deliver: replicant: CheckpointPolicy::delivery must provide `result<void> deliver\(checkpoint_context<Sink>&, transaction&&\)` \(what delivering a committed transaction does\)
// expect no_tick: replicant: CheckpointPolicy::delivery must provide `result<void> tick\(checkpoint_context<Sink>&, std::chrono::steady_clock::time_point\)` \(what time passing does, e\.g\. a timer's flush\)
// expect no_snapshot_taken: replicant: CheckpointPolicy::delivery must provide `result<void> snapshot_taken\(checkpoint_context<Sink>&, lsn\)` \(a snapshot's consistent point becomes the checkpoint\)
// expect rejects_silently: replicant: CheckpointPolicy::accepts<Sink> rejects this Sink: the policy's check_sink<Sink>\(\) says why, or misses a requirement of accepts
// expect no_resident_bytes: replicant: CheckpointPolicy::delivery must provide `bool holding\(\) const noexcept`, `std::optional<std::chrono::steady_clock::time_point> due\(\) const noexcept` and `std::size_t resident_bytes\(\) const noexcept` \(what it holds, and until when\)
#include <replicant/checkpoint/policy.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>

namespace compile_fail {

// Every transaction is durable once the sink returned (what sink_owned_checkpoint does, kept in
// memory): the smallest complete policy, written against replicant::checkpoint_policy_for.
struct my_policy {
  my_policy() = default;
#ifdef REPLICANT_COMPILE_FAIL_not_movable
  // The pipeline keeps its own copy of the settings: a policy it cannot move does not fit.
  my_policy(my_policy&&) = delete;
#endif

#if defined(REPLICANT_COMPILE_FAIL_rejects_silently)
  // A requirement its checklist does not state: the sink is refused without a sentence of its own.
  template <class Sink>
  static constexpr bool accepts = false;
#elif !defined(REPLICANT_COMPILE_FAIL_no_accepts)
  template <class Sink>
  static constexpr bool accepts = true;
#endif

#ifndef REPLICANT_COMPILE_FAIL_no_check_sink
  template <class Sink>
  static constexpr auto check_sink() -> bool {
    return true;
  }
#endif

#ifndef REPLICANT_COMPILE_FAIL_no_delivery
  template <class Sink>
  class delivery {
   public:
    using context = replicant::checkpoint_context<Sink>;
    explicit delivery(my_policy& /*settings*/) noexcept {}
#ifndef REPLICANT_COMPILE_FAIL_no_resume
    auto resume(context& /*ctx*/) -> replicant::result<std::optional<replicant::lsn>> { return last_; }
#endif
#ifndef REPLICANT_COMPILE_FAIL_no_deliver
    auto deliver(context& ctx, replicant::transaction&& t) -> replicant::result<void> {
      auto r = ctx.call_sink([&] { return ctx.sink().handle_transaction(std::as_const(t)); });
      if (!r) return ctx.sink_failed(t.commit_lsn(), std::chrono::steady_clock::duration{}, r.error());
      last_ = t.commit_lsn();
      ctx.persisted(t.commit_lsn(), t.end_lsn());
      ctx.release(std::move(t));
      return {};
    }
#endif
#ifndef REPLICANT_COMPILE_FAIL_no_tick
    auto tick(context& /*ctx*/, std::chrono::steady_clock::time_point /*now*/) -> replicant::result<void> { return {}; }
#endif
    auto flush(context& /*ctx*/) -> replicant::result<void> { return {}; }
#ifndef REPLICANT_COMPILE_FAIL_no_snapshot_taken
    auto snapshot_taken(context& /*ctx*/, replicant::lsn /*at*/) -> replicant::result<void> { return {}; }
#endif
    [[nodiscard]] auto holding() const noexcept -> bool { return false; }
    [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> {
      return std::nullopt;
    }
#ifndef REPLICANT_COMPILE_FAIL_no_resident_bytes
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }
#endif

   private:
    std::optional<replicant::lsn> last_;
  };
#endif
};

struct my_sink {
  auto handle_transaction(const replicant::transaction& /*t*/) -> replicant::result<void> { return {}; }
};

}  // namespace compile_fail

static_assert(replicant::detail::check_checkpoint_policy<compile_fail::my_policy, compile_fail::my_sink>());
