// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A Decoder of one's own is checked member by member (docs/decoders.md, "A decoder of your own"):
// each case leaves one member out, and the checklist names it. The pipeline evaluates this checklist
// first of all (decoder_not_a_policy.cpp proves it through a pipeline); these cases ask it directly,
// which costs a fraction of a pipeline's compile.
// expect plugin_name: replicant: Decoder must provide `static constexpr std::string_view plugin_name` \(the output plugin CREATE_REPLICATION_SLOT names\)
// expect capabilities: replicant: Decoder must provide `static constexpr decoder_capabilities capabilities` \(what its plugin can express\)
// expect validate: replicant: Decoder must provide `halt_or<void> validate\(\) const` \(checks its options before anything connects\)
// expect settings: replicant: Decoder must provide `plugin_settings settings\(\) const` \(what its options ask of the plugin\)
// expect negotiate: replicant: Decoder must provide `result<start_request> negotiate\(const decoder_context&\) const` \(what START_REPLICATION asks for\)
// expect begin_session: replicant: Decoder must provide `void begin_session\(const decoder_context&\)` \(called at every connect\)
// expect catalog_without_prepare: replicant: a Decoder with the catalog capability must provide `result<std::optional<halt>> prepare\(const query_function&\)` \(reads the catalog at connect\)
#include <replicant/decoder/policy.hpp>

#include <cstddef>
#include <span>
#include <string_view>

namespace compile_fail {

struct my_decoder {
#ifndef REPLICANT_COMPILE_FAIL_plugin_name
  static constexpr std::string_view plugin_name = "my_plugin";
#endif
#ifndef REPLICANT_COMPILE_FAIL_capabilities
#ifdef REPLICANT_COMPILE_FAIL_catalog_without_prepare
  // Says it reads the catalog at connect, but has no prepare() to do it with.
  static constexpr replicant::decoder_capabilities capabilities{.publications = true, .catalog = true};
#else
  static constexpr replicant::decoder_capabilities capabilities{.publications = true};
#endif
#endif
#ifndef REPLICANT_COMPILE_FAIL_validate
  [[nodiscard]] auto validate() const -> replicant::halt_or<void> { return {}; }
#endif
#ifndef REPLICANT_COMPILE_FAIL_settings
  [[nodiscard]] auto settings() const -> replicant::plugin_settings { return {}; }
#endif
#ifndef REPLICANT_COMPILE_FAIL_negotiate
  [[nodiscard]] auto negotiate(const replicant::decoder_context&) const -> replicant::result<replicant::start_request> {
    return replicant::start_request{};
  }
#endif
#ifndef REPLICANT_COMPILE_FAIL_begin_session
  auto begin_session(const replicant::decoder_context&) -> void {}
#endif
  template <class Emit>
  [[nodiscard]] auto translate(std::span<const std::byte> payload, Emit&& emit) -> replicant::result<void> {
    return emit(payload);
  }
};

}  // namespace compile_fail

static_assert(replicant::detail::check_decoder<compile_fail::my_decoder>());
