// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP
#define REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP

/// @file
/// replicant-tail's sink: committed transactions (and, with `--snapshot`, the rows of the
/// point-in-time snapshot) in, durable JSON lines out. It is a `replicant::lib_mode_sink`: the
/// replication pipeline owns the checkpoint (a file or memory) and writes it after this sink
/// returned.

#include "json.hpp"
#include "output.hpp"

#include <replicant/core/result.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/sink/vocabulary.hpp>
#include <replicant/snapshot/batch.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace replicant::examples::tail {

/**
 * Writes each committed transaction as JSON lines (json.hpp) and makes them durable before
 * returning, so that the pipeline, which writes the checkpoint and acknowledges the slot only after
 * handle_transaction() returned, never gets ahead of the output.
 *
 * It keeps no watermark of its own: under @ref replicant::lib_owned_checkpoint the pipeline skips
 * transactions at or below the store's checkpoint before they reach the sink. Everything it is
 * given, it prints.
 *
 * @par Example
 * @code
 * output_stream out{STDOUT_FILENO};
 * jsonl_sink sink{out, false};
 * auto written = sink.handle_transaction(txn);  // lines written and synced: the checkpoint may follow
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe (the pipeline calls it from its applier thread).
 */
class jsonl_sink {
 public:
  /// The optional hooks it implements, checked against its members at compile time.
  static constexpr hook hooks = hook::schema_change | hook::message | hook::snapshot | hook::snapshot_complete;

  /// A sink writing to @p out (which must outlive it), printing transactional logical messages
  /// when @p include_messages. Never throws.
  jsonl_sink(output_stream& out, bool include_messages) noexcept : out_(&out), include_messages_(include_messages) {}

  /**
   * Writes the lines of @p t and makes them durable (output_stream::sync).
   * @return nothing, or `errc::decode_failure` for a malformed value, or the OS error of the write
   * or sync (`EPIPE` when the reader went away). After an error nothing of @p t is acknowledged;
   * lines already written for it are printed again by the next run.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto handle_transaction(const transaction& t) -> result<void> {
    buffer_.clear();
    auto written = render_transaction(t, include_messages_, buffer_, [this](std::string& chunk) -> result<void> {
      auto w = out_->write(chunk);
      chunk.clear();
      return w;
    });
    if (!written) return written;
    if (auto s = out_->sync(); !s) return s;
    ++written_;
    return {};
  }

  /**
   * Writes the rows of one snapshot batch (the `--snapshot` start mode), one line each:
   * `{"lsn":"<consistent point>","op":"snapshot","schema":...,"table":...,"record":{...}}`. The
   * lines have no `xid` or `commit_time`: a snapshot row belongs to no transaction, it is the row
   * as of the snapshot's consistent point, which every streamed transaction commits after (so a
   * reader that dedups by `lsn` keeps working).
   *
   * The lines are written, not synced: the checkpoint is written only after
   * handle_snapshot_complete(), which syncs, and an interrupted snapshot is never resumed (the next
   * start stops with `snapshot_incomplete`), so syncing each batch would buy nothing.
   *
   * The snapshot rows hook (on_snapshot_rows()), if set, is called afterwards with the rows written
   * so far.
   * @return nothing, `errc::decode_failure` for a malformed value, or the OS error of the write.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto handle_snapshot(const snapshot_batch& batch, const snapshot_context& ctx) -> result<void> {
    buffer_.clear();
    const std::string prefix = snapshot_prefix(ctx.consistent_point);
    for (const change& c : batch) {
      if (auto r = append_json_change(buffer_, prefix, c); !r) return r;
      if (buffer_.size() > chunk_bytes) {
        if (auto w = out_->write(buffer_); !w) return w;
        buffer_.clear();
      }
    }
    if (!buffer_.empty()) {
      if (auto w = out_->write(buffer_); !w) return w;
    }
    snapshot_rows_ += batch.size();
    if (on_snapshot_rows_) on_snapshot_rows_(snapshot_rows_);
    return {};
  }

  /**
   * The snapshot is complete: makes its lines durable (output_stream::sync), after which the
   * pipeline writes the consistent point @p at as the checkpoint and starts streaming from it.
   * @return nothing, or the OS error of the sync.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto handle_snapshot_complete(lsn /*at*/) -> result<void> { return out_->sync(); }

  /**
   * Sets the function called after each snapshot batch with the number of snapshot rows written so
   * far (replicant-tail's progress line). It runs on the pipeline's thread that reads the snapshot.
   * Never throws.
   */
  auto on_snapshot_rows(std::function<void(std::uint64_t)> hook) -> void { on_snapshot_rows_ = std::move(hook); }

  /**
   * Writes a non-transactional logical message (the pipeline calls it only with `--messages`).
   * Such a message belongs to no transaction, so no checkpoint covers it: it is printed at least
   * once.
   * @return nothing, or the OS error of the write or sync.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto handle_message(const logical_message& m, const message_context& /*context*/) -> result<void> {
    buffer_.clear();
    append_json_message(buffer_, {}, m);
    if (auto w = out_->write(buffer_); !w) return w;
    return out_->sync();
  }

  /**
   * Accepts every schema change, destructive ones included (a dropped column, a changed type, a new
   * replica identity): a JSON line names its columns, so the lines that follow simply show the new
   * shape and nothing needs migrating. Without this hook the pipeline would halt on such a change.
   * Never fails; never throws.
   */
  [[nodiscard]] auto handle_schema_change(const schema_change& /*change*/) noexcept -> result<void> { return {}; }

  /// Number of transactions written so far. Never throws.
  [[nodiscard]] auto written() const noexcept -> std::uint64_t { return written_; }

  /// Number of snapshot rows written so far. Never throws.
  [[nodiscard]] auto snapshot_rows() const noexcept -> std::uint64_t { return snapshot_rows_; }

  /// The part every snapshot line starts with: `{"lsn":"0/16B3748",`. @throws std::bad_alloc only.
  [[nodiscard]] static auto snapshot_prefix(lsn consistent_point) -> std::string {
    std::string out = "{\"lsn\":";
    append_json_lsn(out, consistent_point);
    out.push_back(',');
    return out;
  }

 private:
  // Lines are written in pieces of about this size (as render_transaction does).
  static constexpr std::size_t chunk_bytes = 64 * 1024;

  output_stream* out_;
  bool include_messages_;
  std::string buffer_;
  std::uint64_t written_ = 0;
  std::uint64_t snapshot_rows_ = 0;
  std::function<void(std::uint64_t)> on_snapshot_rows_;
};

static_assert(lib_mode_sink<jsonl_sink>);

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP
