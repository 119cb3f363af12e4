// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A Decoder of one's own (for another output plugin) is checked member by member: one that cannot
// translate its plugin's payloads into pgoutput is named as such.
// expect: replicant: Decoder must provide `result<void> translate\(std::span<const std::byte>, Emit&&\)` \(turns one XLogData payload into pgoutput messages\)
#include <replicant/pipeline.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace compile_fail {

struct my_decoder {
  static constexpr std::string_view plugin_name = "my_plugin";
  static constexpr replicant::decoder_capabilities capabilities{.publications = true};
  [[nodiscard]] auto validate() const -> replicant::halt_or<void> { return {}; }
  [[nodiscard]] auto settings() const -> replicant::plugin_settings { return {}; }
  [[nodiscard]] auto negotiate(const replicant::decoder_context&) const -> replicant::result<replicant::start_request> {
    return replicant::start_request{};
  }
  auto begin_session(const replicant::decoder_context&) -> void {}
#ifndef REPLICANT_COMPILE_FAIL
  template <class Emit>
  [[nodiscard]] auto translate(std::span<const std::byte> payload, Emit&& emit) -> replicant::result<void> {
    return emit(payload);
  }
#endif
};

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

#ifdef REPLICANT_COMPILE_FAIL
static_assert(!replicant::decoder_policy<my_decoder>);
#else
static_assert(replicant::decoder_policy<my_decoder>);  // a user's decoder needs nothing more
#endif

}  // namespace compile_fail

template class replicant::pipeline<compile_fail::my_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
