// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SINK_VOCABULARY_HPP
#define REPLICANT_SINK_VOCABULARY_HPP

/// @file
/// The vocabulary of the sink contract: what kind of consumer a sink is, and what its optional
/// hooks receive. The requirements themselves are concepts, in concepts.hpp.

#include <replicant/core/lsn.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace replicant {

/**
 * How a sink consumes the stream; declared as `static constexpr replicant::sink_kind kind = ...;`
 * in the sink (optional: `state_mirror` when absent).
 */
enum class sink_kind {
  /// The sink mirrors state (upserts by key). When nothing is pending, the slot may be advanced over
  /// WAL that carried nothing for it (the idle advance), so a quiet publication on a busy server
  /// does not pin WAL.
  state_mirror,
  /// The sink appends a log. The slot is never acknowledged past what the sink stored, so an
  /// outside advance of the slot shows up as a gap at the next connect (see `handle_slot_origin`).
  append_log,
};

/// What `IDENTIFY_SYSTEM` returned on the replication connection itself, for
/// `handle_session_identity`. Identifiers of the server, not row data.
struct session_identity {
  /// The cluster's system identifier (decimal text, as the server prints it).
  std::string system_identifier;
  /// The current timeline.
  std::int64_t timeline = 0;
  /// The server's current flush position.
  lsn xlogpos{};
  /// The database the connection is attached to.
  std::string database;
};

/// Context of `handle_session_identity`: what this pipeline is about to stream.
struct session_context {
  /// The slot.
  std::string_view slot;
  /// The publications.
  std::span<const std::string> publications;
};

/// Context of `handle_slot_origin`.
struct slot_origin_context {
  /// The slot.
  std::string_view slot;
  /// False when the slot was just created (the origin is its consistent point); true when it
  /// existed (the origin is the greater of the durable checkpoint and the slot's confirmed position).
  bool reused = false;
};

/// Context of `handle_message` (a non-transactional logical message).
struct message_context {
  /// The message's LSN (the end of its WAL record).
  lsn at{};
};

}  // namespace replicant

#endif  // REPLICANT_SINK_VOCABULARY_HPP
