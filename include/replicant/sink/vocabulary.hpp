// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SINK_VOCABULARY_HPP
#define REPLICANT_SINK_VOCABULARY_HPP

/// @file
/// The vocabulary of the sink contract: what kind of consumer a sink is, and what its optional
/// hooks receive. The requirements themselves are concepts, in concepts.hpp.

#include <replicant/core/lsn.hpp>

#include <cstdint>
#include <optional>
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

/**
 * The optional hooks of a sink, as a set. A sink that lists the hooks it implements, as
 * `static constexpr replicant::hook hooks = hook::schema_change | hook::message;`, has the list
 * checked against its members at compile time: a listed hook that no member of that name
 * implements (`handle_schema_chnage`) and a hook member the list leaves out are each an error
 * with one sentence. Without the list, a hook is whatever member bears its name, and a misspelled
 * one is simply absent; listing them is what closes that gap.
 *
 * @par Example
 * @code
 * struct audit_sink {
 *   static constexpr replicant::hook hooks = replicant::hook::schema_change;
 *   auto handle_schema_change(const replicant::schema_change&, const replicant::schema_change_context&)
 *       -> replicant::result<void>;
 *   // checkpoint(), handle_transaction(...)
 * };
 * @endcode
 */
enum class hook : std::uint16_t {
  /// No optional hook.
  none = 0,
  /// `handle_session_identity`
  session_identity = 1U << 0U,
  /// `handle_slot_origin`
  slot_origin = 1U << 1U,
  /// `handle_schema_change`
  schema_change = 1U << 2U,
  /// `handle_message`
  message = 1U << 3U,
  /// `handle_prepare`
  prepare = 1U << 4U,
  /// `handle_snapshot`
  snapshot = 1U << 5U,
  /// `handle_snapshot_complete`
  snapshot_complete = 1U << 6U,
  /// `snapshot_progress`
  snapshot_progress = 1U << 7U,
};

/// The union of two sets of hooks.
[[nodiscard]] constexpr auto operator|(hook a, hook b) noexcept -> hook {
  return static_cast<hook>(static_cast<std::uint16_t>(static_cast<unsigned>(a) | static_cast<unsigned>(b)));
}

/// Whether the set @p set holds every hook of @p h.
[[nodiscard]] constexpr auto contains(hook set, hook h) noexcept -> bool {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(h)) == static_cast<unsigned>(h);
}

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

/// Context of `handle_schema_change`: which stream the change is in, and where. Value-free: a slot
/// name and a position.
struct schema_change_context {
  /// The slot.
  std::string_view slot;
  /// The commit LSN of the transaction whose changes are the first to use the new shape (nothing
  /// of it has been delivered yet; everything that committed before it has). None for a change a
  /// decoder's own catalog check found between transactions (wal2json's `schema_check_interval`).
  std::optional<lsn> at{};
};

/// Context of `handle_message` (a non-transactional logical message).
struct message_context {
  /// The message's LSN (the end of its WAL record).
  lsn at{};
};

}  // namespace replicant

#endif  // REPLICANT_SINK_VOCABULARY_HPP
