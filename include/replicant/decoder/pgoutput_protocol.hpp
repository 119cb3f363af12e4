// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_PGOUTPUT_PROTOCOL_HPP
#define REPLICANT_DECODER_PGOUTPUT_PROTOCOL_HPP

/// @file
/// replicant::pgoutput_protocol: what was negotiated with pgoutput at `START_REPLICATION` (protocol
/// version and streaming mode). On its own so that the decoder policy (decoder/policy.hpp) can
/// name it without the whole pgoutput decoder: every decoder of the pipeline hands the assembler
/// pgoutput messages, and says which pgoutput they are.

#include <cstdint>

namespace replicant {

/**
 * The `streaming` option given to pgoutput at `START_REPLICATION`.
 *
 * It changes the wire format: with `parallel` (PostgreSQL 16+, protocol 4) a Stream Abort carries
 * the abort LSN and time, with `on` it does not (PROTOCOL.md §7 gotcha #10).
 */
enum class pgoutput_streaming : std::uint8_t {
  /// Large transactions are decoded only once committed (no S/E/c/A/p messages).
  off,
  /// In-progress transactions are streamed (protocol 2+).
  on,
  /// Streamed, with the extra abort information parallel apply needs (protocol 4+).
  parallel,
};

/**
 * What was negotiated with pgoutput at `START_REPLICATION`: the decoder needs it because the
 * same message type byte can have different layouts (Stream Abort) and because some messages only
 * exist from some version on.
 *
 * @par Example
 * @code
 * replicant::pgoutput_reader reader{{.version = 4, .streaming = replicant::pgoutput_streaming::parallel}};
 * @endcode
 */
struct pgoutput_protocol {
  /// Highest protocol version pgoutput knows (PostgreSQL 16 to 18).
  static constexpr std::uint32_t max_version = 4;

  /// `proto_version`: 1 (PG10+), 2 (PG14+, streaming), 3 (PG15+, two-phase), 4 (PG16+, parallel).
  std::uint32_t version = max_version;
  /// The `streaming` option.
  pgoutput_streaming streaming = pgoutput_streaming::off;

  /// False for combinations pgoutput itself refuses: a version outside 1..4, streaming below
  /// protocol 2, parallel streaming below protocol 4.
  [[nodiscard]] constexpr auto is_valid() const noexcept -> bool {
    if (version < 1 || version > max_version) return false;
    if (streaming == pgoutput_streaming::on) return version >= 2;
    if (streaming == pgoutput_streaming::parallel) return version >= 4;
    return true;
  }
};

}  // namespace replicant

#endif  // REPLICANT_DECODER_PGOUTPUT_PROTOCOL_HPP
