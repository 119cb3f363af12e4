// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_OUTPUT_HPP
#define REPLICANT_EXAMPLES_TAIL_OUTPUT_HPP

/// @file
/// Durable writes for replicant-tail: the output stream (stdout).
///
/// A transaction's lines are written and made durable here before the sink returns; only then does
/// the replication pipeline write the checkpoint (--checkpoint-file) and acknowledge the slot. A
/// crash between those two steps prints that one transaction again on restart; nothing is ever
/// skipped (docs/tail.md).

#include <replicant/core/result.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string_view>
#include <system_error>

namespace replicant::examples::tail {

namespace detail {

// The current errno as an error code: an OS error number carries no data, so it may be printed.
[[nodiscard]] inline auto last_os_error() -> unexpected<std::error_code> {
  return unexpected<std::error_code>(std::error_code{errno, std::system_category()});
}

// Writes all of @p bytes to @p fd, retrying after signals and short writes.
[[nodiscard]] inline auto write_all(int fd, std::string_view bytes) -> result<void> {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return last_os_error();
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace detail

/**
 * Where the JSON lines go: a file descriptor (stdout), written with `write(2)` so nothing sits in
 * a user-space buffer, and synced with `fsync(2)` when it is a regular file (a pipe or terminal has
 * no durability to ask for: the reader has the bytes once `write` returns).
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class output_stream {
 public:
  /// Writes to @p fd, which the caller keeps open. Never throws.
  explicit output_stream(int fd) noexcept : fd_(fd) {
    struct stat st{};
    regular_file_ = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  }

  /// Writes all of @p bytes. @return nothing, or the OS error (`EPIPE` when the reader went away).
  [[nodiscard]] auto write(std::string_view bytes) -> result<void> { return detail::write_all(fd_, bytes); }

  /// Makes everything written so far durable (fsync for a regular file; nothing otherwise).
  /// @return nothing, or the OS error.
  [[nodiscard]] auto sync() -> result<void> {
    if (regular_file_ && ::fsync(fd_) != 0) return detail::last_os_error();
    return {};
  }

  /// Whether the descriptor is a regular file (and sync() therefore calls fsync).
  [[nodiscard]] auto is_regular_file() const noexcept -> bool { return regular_file_; }

 private:
  int fd_;
  bool regular_file_ = false;
};

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_OUTPUT_HPP
