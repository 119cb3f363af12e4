// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP
#define REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP

/// @file
/// replicant-tail's sink: committed transactions in, durable JSON lines out. It is a
/// `replicant::lib_mode_sink`: the replication pipeline owns the checkpoint (a file or memory) and
/// writes it after this sink returned.

#include "json.hpp"
#include "output.hpp"

#include <replicant/concepts.hpp>
#include <replicant/result.hpp>
#include <replicant/schema_change.hpp>
#include <replicant/sink.hpp>
#include <replicant/transaction.hpp>

#include <cstdint>
#include <string>

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

 private:
  output_stream* out_;
  bool include_messages_;
  std::string buffer_;
  std::uint64_t written_ = 0;
};

static_assert(lib_mode_sink<jsonl_sink>);

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_JSONL_SINK_HPP
