// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A user's checkpoint policy without a nested delivery (the behaviour) is refused with one sentence
// naming it.
// expect: replicant: CheckpointPolicy must provide `template <class Sink> class delivery`, constructible from `CheckpointPolicy&` \(carries the policy's behaviour for one connection\)
#include <replicant/pipeline.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>

namespace compile_fail {

// A user's checkpoint policy, written against replicant::checkpoint_policy_for: every transaction
// is durable once the sink returned (what sink_owned_checkpoint does, kept in memory).
struct my_policy {
  template <class Sink>
  static constexpr bool accepts = true;

  template <class Sink>
  static constexpr auto check_sink() -> bool {
    return true;
  }
#ifndef REPLICANT_COMPILE_FAIL
  template <class Sink>
  class delivery {
   public:
    using context = replicant::checkpoint_context<Sink>;
    explicit delivery(my_policy& /*settings*/) noexcept {}
    auto resume(context& /*ctx*/) -> replicant::result<std::optional<replicant::lsn>> { return last_; }
    auto deliver(context& ctx, replicant::transaction&& t) -> replicant::result<void> {
      auto r = ctx.call_sink([&] { return ctx.sink().handle_transaction(std::as_const(t)); });
      if (!r) return ctx.sink_failed(t.commit_lsn(), std::chrono::steady_clock::duration{}, r.error());
      last_ = t.commit_lsn();
      ctx.persisted(t.commit_lsn(), t.end_lsn());
      ctx.release(std::move(t));
      return {};
    }
    auto tick(context& /*ctx*/, std::chrono::steady_clock::time_point /*now*/) -> replicant::result<void> { return {}; }
    auto flush(context& /*ctx*/) -> replicant::result<void> { return {}; }
    auto snapshot_taken(context& /*ctx*/, replicant::lsn /*at*/) -> replicant::result<void> { return {}; }
    [[nodiscard]] auto holding() const noexcept -> bool { return false; }
    [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> {
      return std::nullopt;
    }
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }

   private:
    std::optional<replicant::lsn> last_;
  };
#endif
};

struct my_sink {
  auto handle_transaction(const replicant::transaction& /*t*/) -> replicant::result<void> { return {}; }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, compile_fail::my_policy, replicant::no_spill,
                                   compile_fail::my_sink>;
