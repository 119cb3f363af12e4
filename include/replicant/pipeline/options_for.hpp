// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_OPTIONS_FOR_HPP
#define REPLICANT_PIPELINE_OPTIONS_FOR_HPP

/// @file
/// replicant::pipeline_options_for: the options a pipeline of a given decoder takes. For pgoutput,
/// `pipeline_options` itself; for a decoder that cannot express some of its settings (wal2json,
/// pglogical), the same options with those settings replaced by members that refuse to be set, at
/// compile time and with a message saying why.

#include <replicant/decoder/policy.hpp>
#include <replicant/pipeline/options.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace replicant {

namespace detail {

/// The settings of `pipeline_options` that only some output plugins can express.
enum class capability_setting {
  publications,
  snapshot,
  streaming,
  two_phase,
  messages,
  origin,
  failover,
  binary,
  protocol_version,
};

/**
 * A setting the pipeline's decoder cannot express. It is default-constructible (so the options
 * that hold it are), reads as "not asked for", and any attempt to give it a value fails to
 * compile with a message naming the setting and the way out.
 */
template <capability_setting Setting>
class refused_setting {
 public:
  refused_setting() = default;

  /// Refuses any value, at compile time.
  template <class T>
  requires(!std::same_as<std::remove_cvref_t<T>, refused_setting>)
      refused_setting(T&&) {  // NOLINT(google-explicit-constructor): `= value` must reach the message
    refuse<T>();
  }

  /// Refuses any value, at compile time.
  template <class T>
  requires(!std::same_as<std::remove_cvref_t<T>, refused_setting>) auto operator=(T&&) -> refused_setting& {
    refuse<T>();
    return *this;
  }

 private:
  // One static_assert per setting, each dependent on T so that only the one used fires.
  template <class T>
  static constexpr auto refuse() -> void {
    static_assert(Setting != capability_setting::publications || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::publications: this Decoder names its table set in its "
                  "own options (wal2json_options::tables, pglogical_options::replication_sets), not in publications");
    static_assert(Setting != capability_setting::snapshot || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::snapshot: this Decoder has no snapshot start mode "
                  "(only pgoutput_decoder reads tables through their publication's filters); use go_forward_only");
    static_assert(Setting != capability_setting::streaming || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::streaming: this Decoder cannot stream in-progress "
                  "transactions (only pgoutput_decoder can); large transactions are held under the SpillPolicy");
    static_assert(Setting != capability_setting::two_phase || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::two_phase: this Decoder cannot decode two-phase "
                  "transactions (only pgoutput_decoder can)");
    static_assert(Setting != capability_setting::messages || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::messages: this Decoder cannot deliver logical "
                  "decoding messages (pglogical has none; pgoutput_decoder and wal2json_decoder can)");
    static_assert(Setting != capability_setting::origin || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::origin: this Decoder cannot filter transactions by "
                  "origin (only pgoutput_decoder can)");
    static_assert(Setting != capability_setting::failover || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::failover: this Decoder's slots cannot be failover "
                  "slots for the pipeline (only pgoutput_decoder's can; see docs/operations.md)");
    static_assert(Setting != capability_setting::binary || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::binary: this Decoder's plugin has no binary value "
                  "format (only pgoutput_decoder has)");
    static_assert(Setting != capability_setting::protocol_version || always_false<T>,
                  "replicant: pipeline_options_for<Decoder>::protocol_version: this Decoder's protocol version is "
                  "not chosen here (only pgoutput_decoder's is)");
  }
};

/// A member of type `T` when the decoder can express the setting, a refused one otherwise.
template <bool Can, class T, capability_setting Setting>
using setting_if = std::conditional_t<Can, T, refused_setting<Setting>>;

/// Whether a decoder can express every setting of `pipeline_options`.
template <class Decoder>
inline constexpr bool expresses_every_option =
    Decoder::capabilities.publications&& Decoder::capabilities.snapshot&& Decoder::capabilities
        .streaming&& Decoder::capabilities.two_phase&& Decoder::capabilities.messages&& Decoder::capabilities
        .origin_filter&& Decoder::capabilities.failover&& Decoder::capabilities.binary&& Decoder::capabilities
        .protocol_version;

}  // namespace detail

/**
 * The options of a pipeline whose decoder cannot express every setting of `pipeline_options`:
 * those settings are redeclared here, as themselves where the decoder can express them and as
 * members that refuse any value where it cannot, so that asking a plugin for what it would
 * silently not do does not compile. Name it through @ref pipeline_options_for.
 *
 * | setting | wal2json_decoder | pglogical_decoder |
 * |---|---|---|
 * | `publications` (the table set is the decoder's own options) | refused | refused |
 * | `snapshot` | refused | refused |
 * | `streaming`, `two_phase`, `origin`, `failover`, `binary`, `protocol_version` | refused | refused |
 * | `messages` | yes | refused |
 *
 * @par Example
 * @code
 * replicant::pipeline_options_for<replicant::wal2json_decoder> o;
 * o.conninfo = "dbname=shop";
 * o.slot = "shop_json";
 * o.go_forward_only = true;
 * o.messages = true;     // wal2json delivers logical messages
 * // o.streaming = true; // does not compile: "this Decoder cannot stream in-progress transactions"
 * @endcode
 *
 * @par Thread safety
 * A value: as safe as `pipeline_options`.
 */
template <decoder_policy Decoder>
struct restricted_pipeline_options : pipeline_options {
 private:
  static constexpr decoder_capabilities can = Decoder::capabilities;
  using setting = detail::capability_setting;

 public:
  /// Every setting at its default.
  restricted_pipeline_options() = default;

  /**
   * The settings of @p o, from a full set of options built elsewhere (shared configuration, a
   * command line). What the decoder cannot express is carried over too, so that the pipeline
   * refuses it before it connects (`decoder_capability_unsupported`, `snapshot_unsupported`, or
   * `config_invalid` for publications) rather than dropping it. Never throws but `std::bad_alloc`.
   */
  explicit restricted_pipeline_options(const pipeline_options& o) : pipeline_options(o) { transfer(o, *this); }

  /// As `pipeline_options::publications`, or refused: a translating decoder names its tables.
  detail::setting_if<can.publications, std::vector<std::string>, setting::publications> publications{};
  /// As `pipeline_options::snapshot`, or refused.
  detail::setting_if<can.snapshot, snapshot_setting, setting::snapshot> snapshot{};
  /// As `pipeline_options::streaming`, or refused.
  detail::setting_if<can.streaming, bool, setting::streaming> streaming{};
  /// As `pipeline_options::two_phase`, or refused.
  detail::setting_if<can.two_phase, bool, setting::two_phase> two_phase{};
  /// As `pipeline_options::messages`, or refused.
  detail::setting_if<can.messages, bool, setting::messages> messages{};
  /// As `pipeline_options::origin`, or refused.
  detail::setting_if<can.origin_filter, std::optional<origin_filter>, setting::origin> origin{};
  /// As `pipeline_options::failover`, or refused.
  detail::setting_if<can.failover, bool, setting::failover> failover{};
  /// As `pipeline_options::binary`, or refused.
  detail::setting_if<can.binary, bool, setting::binary> binary{};
  /// As `pipeline_options::protocol_version`, or refused.
  detail::setting_if<can.protocol_version, std::uint32_t, setting::protocol_version> protocol_version{};

  /// The full set of options the pipeline runs with: the common settings, plus those redeclared
  /// here that the decoder can express. Never throws but `std::bad_alloc`.
  [[nodiscard]] auto widen() && -> pipeline_options {
    pipeline_options full = std::move(static_cast<pipeline_options&>(*this));
    transfer(*this, full);
    return full;
  }

 private:
  // Copies the settings the decoder can express from @p from to @p to, each by its name: between a
  // pipeline_options and these options, whose members of those names hide the base's.
  template <class From, class To>
  static auto transfer(const From& from, To& to) -> void {
    if constexpr (can.publications) to.publications = from.publications;
    if constexpr (can.snapshot) to.snapshot = from.snapshot;
    if constexpr (can.streaming) to.streaming = from.streaming;
    if constexpr (can.two_phase) to.two_phase = from.two_phase;
    if constexpr (can.messages) to.messages = from.messages;
    if constexpr (can.origin_filter) to.origin = from.origin;
    if constexpr (can.failover) to.failover = from.failover;
    if constexpr (can.binary) to.binary = from.binary;
    if constexpr (can.protocol_version) to.protocol_version = from.protocol_version;
  }
};

/**
 * The options a `pipeline<Decoder, ...>` takes: `pipeline_options` when the decoder can express
 * all of it (pgoutput), otherwise @ref restricted_pipeline_options, in which setting what the
 * decoder cannot express does not compile.
 *
 * @par Example
 * @code
 * static_assert(std::same_as<replicant::pipeline_options_for<replicant::pgoutput_decoder>,
 *                            replicant::pipeline_options>);
 * @endcode
 */
template <decoder_policy Decoder>
using pipeline_options_for =
    std::conditional_t<detail::expresses_every_option<Decoder>, pipeline_options, restricted_pipeline_options<Decoder>>;

namespace detail {

/// The full options a pipeline runs with, from those its constructor took.
inline auto widen(pipeline_options o) -> pipeline_options { return o; }

/// As above, for a decoder that cannot express every setting.
template <class Decoder>
auto widen(restricted_pipeline_options<Decoder> o) -> pipeline_options {
  return std::move(o).widen();
}

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_OPTIONS_FOR_HPP
