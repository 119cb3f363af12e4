// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP
#define REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP

/// @file
/// replicant-tail's sink: committed transactions in, durable JSON lines and a durable checkpoint
/// out. It has the members of a sink that owns its checkpoint (`checkpoint()` and
/// `handle_transaction()`), so the same class serves the single-threaded loop of the CLI and,
/// later, the replication pipeline.

#include "json.hpp"
#include "output.hpp"

#include <replicant/lsn.hpp>
#include <replicant/result.hpp>
#include <replicant/transaction.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace replicant::examples::tail {

/**
 * Writes each committed transaction as JSON lines (json.hpp) and keeps the exactly-once
 * watermark: the commit LSN of the last transaction written, in a @ref checkpoint_file when one is
 * given (in memory otherwise).
 *
 * handle_transaction() does, in this order: skip the transaction if its commit LSN is not above
 * the watermark (the server re-sends what it was not told about); write its lines; make them
 * durable (output_stream::sync); store the commit LSN durably. It returns the commit LSN only
 * after all of that, so whoever acknowledges the slot never acknowledges more than is durable.
 *
 * @par Example
 * @code
 * output_stream out{STDOUT_FILENO};
 * jsonl_sink sink{out, nullptr, false};
 * auto persisted = sink.handle_transaction(txn);  // lines written; safe to acknowledge txn.end_lsn()
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class jsonl_sink {
 public:
  /// A sink writing to @p out, keeping its watermark in @p checkpoint (may be null: memory only),
  /// printing transactional logical messages when @p include_messages. Both objects must outlive
  /// the sink. Never throws.
  jsonl_sink(output_stream& out, checkpoint_file* checkpoint, bool include_messages) noexcept
      : out_(&out), checkpoint_(checkpoint), include_messages_(include_messages) {
    if (checkpoint_ != nullptr) watermark_ = checkpoint_->stored();
  }

  /// The commit LSN of the last transaction durably written (from the checkpoint file at start),
  /// or none. Never fails; the result type is the sink contract's.
  [[nodiscard]] auto checkpoint() const -> result<std::optional<lsn>> { return watermark_; }

  /**
   * Writes @p t (see the class comment).
   * @return the commit LSN, now durable (also for a skipped transaction, which already was); or
   * `errc::decode_failure` for a malformed value, or the OS error of the write, sync or
   * checkpoint store. After an error nothing of @p t is acknowledged; lines already written for
   * it are printed again on restart.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto handle_transaction(const transaction& t) -> result<lsn> {
    if (watermark_ && t.commit_lsn() <= *watermark_) {
      ++skipped_;
      return t.commit_lsn();
    }
    buffer_.clear();
    auto written = render_transaction(t, include_messages_, buffer_, [this](std::string& chunk) -> result<void> {
      auto w = out_->write(chunk);
      chunk.clear();
      return w;
    });
    if (!written) return unexpected(written.error());
    if (auto s = out_->sync(); !s) return unexpected(s.error());
    if (checkpoint_ != nullptr) {
      if (auto c = checkpoint_->store(t.commit_lsn()); !c) return unexpected(c.error());
    }
    watermark_ = t.commit_lsn();
    ++written_;
    return t.commit_lsn();
  }

  /**
   * Writes a non-transactional logical message (only called with `--messages`). Such a message
   * belongs to no transaction, so it has no place in the watermark: it is printed at least once.
   * @return nothing, or the OS error of the write or sync.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto handle_message(const logical_message& m) -> result<void> {
    buffer_.clear();
    append_json_message(buffer_, {}, m);
    if (auto w = out_->write(buffer_); !w) return w;
    return out_->sync();
  }

  /// Number of transactions written so far. Never throws.
  [[nodiscard]] auto written() const noexcept -> std::uint64_t { return written_; }
  /// Number of transactions skipped because they were at or below the watermark. Never throws.
  [[nodiscard]] auto skipped() const noexcept -> std::uint64_t { return skipped_; }

 private:
  output_stream* out_;
  checkpoint_file* checkpoint_;
  bool include_messages_;
  std::optional<lsn> watermark_;
  std::string buffer_;
  std::uint64_t written_ = 0;
  std::uint64_t skipped_ = 0;
};

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP
