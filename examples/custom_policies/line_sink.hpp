// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_CUSTOM_POLICIES_LINE_SINK_HPP
#define REPLICANT_EXAMPLES_CUSTOM_POLICIES_LINE_SINK_HPP

/// @file
/// replicant-custom-policies' sink: one tab-separated line per change appended to a file, then one
/// commit line per transaction, made durable (fdatasync) before the transaction counts as written.
/// A file cannot hold a checkpoint atomically with its lines, so the sink keeps none: the
/// checkpoint policy keeps it in a store, written after the sink returned.
///
/// The format, one record per line:
///
///     <commit LSN> \t <insert|update|delete|truncate> \t <schema>.<table> \t <first column, as text>
///     <commit LSN> \t commit \t <changes> \t <bytes the transaction had spilled>
///
/// A reader applies a transaction when it reaches its commit line, and skips a commit LSN it has
/// already applied: after a crash, what followed the last checkpoint written comes again.
/// Change lines without their commit line (a crash in the middle of a transaction) are not a
/// transaction; a torn last line is ended with a newline when the file is opened again, so that it
/// stands alone and a reader can skip it.

#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/model/value.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace custom_policies {

/**
 * Appends committed changes to a file as lines (see the file comment), fdatasynced once per
 * transaction. A sink for a checkpoint policy that owns the checkpoint: it provides
 * `handle_transaction` returning `result<void>` and no `checkpoint()`.
 *
 * Errors are the operating system's codes (value-free: never a path or a row); the pipeline halts
 * `sink_failed` with them, and acknowledges nothing from the failed transaction on.
 *
 * @par Thread safety
 * One pipeline calls it, from one thread; the counters are read after `run()` returned.
 */
class line_sink {
 public:
  /// Opens @p path for appending (created 0600 if missing). @return the sink, or the OS error.
  static auto open(const std::filesystem::path& path) -> replicant::result<line_sink> {
    const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return os_error();
    line_sink sink{fd};
    // A crash may have torn the last line: end it, so that the next line starts on its own.
    struct stat st{};
    if (::fstat(fd, &st) != 0) return os_error();
    if (st.st_size > 0) {
      char last = '\n';
      if (::pread(fd, &last, 1, st.st_size - 1) != 1) return os_error();
      if (last != '\n') {
        sink.buffer_ = "\n";
        if (auto w = sink.drain(); !w) return replicant::unexpected(w.error());
      }
    }
    return sink;
  }

  line_sink(line_sink&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)),
        buffer_(std::move(other.buffer_)),
        transactions_(other.transactions_),
        changes_(other.changes_),
        spilled_(other.spilled_) {}
  line_sink(const line_sink&) = delete;
  auto operator=(const line_sink&) -> line_sink& = delete;
  auto operator=(line_sink&&) -> line_sink& = delete;
  ~line_sink() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// Appends the lines of @p txn and makes them durable. The checkpoint policy writes the
  /// checkpoint afterwards: if it never gets to, the transaction comes again.
  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<void> {
    buffer_.clear();  // what a failed call left
    const std::string commit = replicant::to_string(txn.commit_lsn());
    std::uint64_t n = 0;
    // A spilled transaction is read back from the spill policy's part while this loop runs.
    for (const replicant::change& c : txn.changes()) {
      buffer_ += commit;
      buffer_ += '\t';
      buffer_ += replicant::to_string(c.op());
      buffer_ += '\t';
      buffer_ += c.relation().schema;
      buffer_ += '.';
      buffer_ += c.relation().table;
      buffer_ += '\t';
      buffer_ += first_column(c.op() == replicant::change_op::delete_ ? c.old() : c.record());
      buffer_ += '\n';
      ++n;
      if (buffer_.size() >= flush_at) {
        if (auto w = drain(); !w) return w;
      }
    }
    buffer_ += commit + "\tcommit\t" + std::to_string(n) + '\t' + std::to_string(txn.spilled_bytes()) + '\n';
    if (auto w = drain(); !w) return w;
    if (::fdatasync(fd_) != 0) return os_error();
    ++transactions_;
    changes_ += n;
    if (txn.spilled_bytes() > 0) ++spilled_;
    return {};
  }

  /// Transactions written by this process.
  [[nodiscard]] auto transactions() const noexcept -> std::uint64_t { return transactions_; }
  /// Changes written by this process.
  [[nodiscard]] auto changes() const noexcept -> std::uint64_t { return changes_; }
  /// Transactions written that had been spilled by the spill policy.
  [[nodiscard]] auto spilled() const noexcept -> std::uint64_t { return spilled_; }

 private:
  // Lines are written in pieces of this size: a spilled transaction is never held whole here.
  static constexpr std::size_t flush_at = std::size_t{64} << 10U;

  explicit line_sink(int fd) noexcept : fd_(fd) {}

  [[nodiscard]] static auto os_error() -> replicant::unexpected<std::error_code> {
    return replicant::unexpected<std::error_code>(std::error_code{errno, std::system_category()});
  }

  // The first column of @p r as text; `-` when the row is empty or its value is not there.
  [[nodiscard]] static auto first_column(const replicant::row& r) -> std::string {
    if (r.empty()) return "-";
    const replicant::field f = *r.begin();
    auto v = f.value();
    return v ? replicant::to_string(*v) : std::string{"-"};
  }

  // Writes the buffer out (appending), and empties it.
  auto drain() -> replicant::result<void> {
    std::string_view rest = buffer_;
    while (!rest.empty()) {
      const ssize_t n = ::write(fd_, rest.data(), rest.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return os_error();
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    buffer_.clear();
    return {};
  }

  int fd_ = -1;
  std::string buffer_;
  std::uint64_t transactions_ = 0;
  std::uint64_t changes_ = 0;
  std::uint64_t spilled_ = 0;
};

}  // namespace custom_policies

#endif  // REPLICANT_EXAMPLES_CUSTOM_POLICIES_LINE_SINK_HPP
