// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A pipeline over a user's checkpoint policy whose delivery has no flush() names the missing
// operation (docs/checkpoint/writing_a_policy.md, "The compile-time checklist").
// expect: replicant: CheckpointPolicy::delivery must provide `result<void> flush\(checkpoint_context<Sink>&\)` \(hands over everything held: before a message, a schema change, and at a stop\)
#include <replicant/pipeline.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

// Sink-owned, per transaction: the smallest complete policy.
struct my_policy {
  template <class Sink>
  static constexpr bool accepts = replicant::sink<Sink>;
  template <class Sink>
  static constexpr auto check_sink() -> bool {
    return true;
  }

  template <class Sink>
  class delivery {
   public:
    using context = replicant::checkpoint_context<Sink>;
    explicit delivery(my_policy& /*settings*/) noexcept {}

    auto resume(context& ctx) -> replicant::result<std::optional<replicant::lsn>> { return ctx.sink().checkpoint(); }
    auto deliver(context& ctx, replicant::transaction&& t) -> replicant::result<void> {
      auto stored = ctx.sink().handle_transaction(t);
      if (!stored) return ctx.sink_failed(t.commit_lsn(), {}, stored.error());
      const auto commit = t.commit_lsn();
      const auto end = t.end_lsn();
      ctx.release(std::move(t));
      ctx.persisted(commit, end);
      return {};
    }
    auto tick(context& /*ctx*/, std::chrono::steady_clock::time_point /*now*/) -> replicant::result<void> { return {}; }
#ifndef REPLICANT_COMPILE_FAIL
    auto flush(context& /*ctx*/) -> replicant::result<void> { return {}; }
#endif
    auto snapshot_taken(context& /*ctx*/, replicant::lsn /*at*/) -> replicant::result<void> { return {}; }
    [[nodiscard]] auto holding() const noexcept -> bool { return false; }
    [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> {
      return std::nullopt;
    }
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }
  };
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, compile_fail::my_policy, replicant::no_spill,
                                   compile_fail::my_sink>;
