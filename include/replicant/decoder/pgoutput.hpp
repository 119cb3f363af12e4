// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_PGOUTPUT_HPP
#define REPLICANT_DECODER_PGOUTPUT_HPP

/// @file
/// replicant::pgoutput_decoder and replicant::pgoutput_options: PostgreSQL's built-in `pgoutput`
/// plugin (protocol versions 1 to 4) as a replication pipeline's decoder policy. Its messages and
/// their wire reader are in <replicant/decoder/pgoutput_reader.hpp>.

#include <replicant/core/halt.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/pgoutput_protocol.hpp>
#include <replicant/decoder/policy.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace replicant {

/**
 * What a replication pipeline asks pgoutput for: its publications and its plugin options
 * (`START_REPLICATION ... (proto_version, publication_names, ...)`). These are pgoutput's own, as
 * `wal2json_options` and `pglogical_options` are their plugins': a pipeline of another decoder
 * cannot be asked for them, since its options have no such members. An aggregate.
 *
 * @par Example
 * @code
 * replicant::pgoutput_options p{.publications = {"orders_pub"}, .streaming = true};
 * replicant::pipeline<replicant::pgoutput_decoder, ...> pipe{sink, p, options};
 * @endcode
 */
struct pgoutput_options {
  /// The publications to stream: one or more plain identifiers, each of which must exist.
  std::vector<std::string> publications{};
  /// The protocol version (1-4); 0 picks the highest the server speaks (3 on 15, 4 on 16+).
  std::uint32_t protocol_version = 0;
  /// Column values in binary form (`binary 'true'`): faster for some types, same values. Refused
  /// with the incremental snapshot, which compares key text.
  bool binary = false;
  /// Receive large transactions while they are still in progress (`streaming`: `on` with protocol
  /// 2-3, `parallel` with protocol 4 on PostgreSQL 16+), so the server does not spill them to its
  /// own disk and delivery follows the commit at once. They are held until they commit and count
  /// against `pipeline_options::max_inflight_bytes` and `max_concurrent_txns`. Needs protocol 2+.
  bool streaming = false;
  /// Decode two-phase transactions (protocol 3+): a prepared transaction is delivered once, when
  /// COMMIT PREPARED arrives, and never after ROLLBACK PREPARED. The slot is created with two-phase
  /// decoding, and keeps it for good once streamed with it. While a prepared transaction is
  /// outstanding, the slot is not acknowledged past its PREPARE (the server would otherwise not send
  /// its changes again).
  bool two_phase = false;
  /// Logical decoding messages (`pg_logical_emit_message`). Needs a sink with `handle_message` for
  /// the non-transactional ones.
  bool messages = false;
  /// Filter transactions by origin (PostgreSQL 16+; on 15 asking for it halts
  /// `origin_unsupported`). None: the server's default, which is `any`.
  std::optional<origin_filter> origin{};
};

namespace detail {
template <>
inline constexpr bool is_decoder_options<pgoutput_options> = true;
}  // namespace detail

/**
 * The pgoutput plugin as a replication pipeline's Decoder (@ref replicant::decoder_policy): it
 * checks and negotiates `START_REPLICATION`, and its translation is the identity, so the pgoutput
 * path pays nothing for the seam the other decoders use. It holds no stream state: the assembler
 * reads the stream with a @ref pgoutput_reader of its own (decoder/pgoutput_reader.hpp).
 *
 * @par Example
 * @code
 * replicant::pgoutput_decoder plugin{replicant::pgoutput_options{.publications = {"orders_pub"}}};
 * static_assert(replicant::pgoutput_decoder::capabilities.streaming);
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: safe to read.
 */
class pgoutput_decoder {
 public:
  /// What a replication pipeline's pgoutput_decoder is made from.
  using options_type = pgoutput_options;

  /// No publication yet: validate() refuses it until options are given. Never throws.
  pgoutput_decoder() = default;

  /// The replication pipeline's decoder, asking pgoutput for @p options. Never throws.
  explicit pgoutput_decoder(pgoutput_options options) noexcept : options_(std::move(options)) {}

  /// The output plugin name for `CREATE_REPLICATION_SLOT ... LOGICAL`.
  static constexpr std::string_view plugin_name = "pgoutput";

  /// Everything the pipeline offers: pgoutput is the protocol it is built on. Its table set is the
  /// publications of `pgoutput_options::publications`.
  static constexpr decoder_capabilities capabilities{.publications = true,
                                                     .streaming = true,
                                                     .two_phase = true,
                                                     .messages = true,
                                                     .origin_filter = true,
                                                     .failover = true,
                                                     .binary = true,
                                                     .protocol_version = true,
                                                     .snapshot = true,
                                                     .catalog = false};

  /**
   * Checks the options: at least one publication, each a plain identifier; a protocol version of
   * 0-4; streaming asks for protocol 2 or more, two-phase for 3 or more (when one is chosen).
   * @return nothing, `halt_reason::invalid_identifier` (which name is not said) or
   *   `halt_reason::config_invalid`. Never throws.
   */
  [[nodiscard]] auto validate() const noexcept -> halt_or<void>;

  /// The options, as the pipeline reads them (a view of the publications). Never throws.
  [[nodiscard]] auto settings() const noexcept -> plugin_settings {
    return plugin_settings{.publications = options_.publications,
                           .protocol_version = options_.protocol_version,
                           .binary = options_.binary,
                           .streaming = options_.streaming,
                           .two_phase = options_.two_phase,
                           .messages = options_.messages,
                           .origin = options_.origin};
  }

  /// The options given at construction.
  [[nodiscard]] auto options() const noexcept -> const pgoutput_options& { return options_; }

  /**
   * The `START_REPLICATION` options for the server of @p ctx: `proto_version` (the one
   * asked for, or the highest the server speaks: 3 on 15, 4 on 16 and later), `publication_names`,
   * and `messages`, `streaming` (`parallel` with protocol 4 on 16+, else `on`), `two_phase`,
   * `origin` and `binary` as asked. The protocol it returns is what the assembler must be told.
   *
   * @return the request, or `errc::invalid_identifier` for a publication name that cannot
   *   be quoted (validate() refuses those first). Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto negotiate(const decoder_context& ctx) const -> result<start_request>;

  /// A new session: nothing to forget, the assembler's reader holds the stream state. Never throws.
  auto begin_session(const decoder_context&) noexcept -> void {}

  /**
   * pgoutput is what the pipeline consumes: hands @p payload to @p emit unchanged.
   * @return nothing, or @p emit's error.
   * @throws whatever @p emit throws; nothing else.
   */
  template <pgoutput_emitter Emit>
  [[nodiscard]] auto translate(std::span<const std::byte> payload, Emit&& emit) const -> result<void> {
    if constexpr (std::is_void_v<std::invoke_result_t<Emit&, std::span<const std::byte>>>) {
      std::invoke(emit, payload);
      return {};
    } else {
      return std::invoke(emit, payload);
    }
  }

 private:
  pgoutput_options options_{};  // what the pipeline asks the plugin for
};

}  // namespace replicant

#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/decoder/impl/pgoutput.hpp>
#endif

#endif  // REPLICANT_DECODER_PGOUTPUT_HPP
