// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_OUTPUT_HPP
#define REPLICANT_EXAMPLES_TAIL_OUTPUT_HPP

/// @file
/// Durable writes for replicant-tail: the output stream (stdout) and the checkpoint file.
///
/// The order of the two is the whole exactly-once story of the CLI (docs/tail.md): a transaction's
/// lines are written and made durable first, then its commit LSN is stored durably, and only then
/// is the slot acknowledged. A crash between the first two steps prints that one transaction again
/// on restart; nothing is ever skipped.

#include <replicant/error.hpp>
#include <replicant/lsn.hpp>
#include <replicant/result.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

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

// A file descriptor closed on destruction.
class unique_fd {
 public:
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(const unique_fd&) = delete;
  auto operator=(const unique_fd&) -> unique_fd& = delete;
  ~unique_fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] auto get() const noexcept -> int { return fd_; }
  // Closes now, reporting the error a deferred write may surface at close time.
  [[nodiscard]] auto close() noexcept -> int {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

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
    struct stat st {};
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

/**
 * The checkpoint file: one line holding the commit LSN of the last transaction whose lines were
 * durably written, e.g. `0/16B3748`.
 *
 * store() replaces the file atomically and durably: it writes `PATH.tmp`, fsyncs it, renames it
 * over `PATH` and fsyncs the directory, so after a crash the file holds either the old or the new
 * LSN, never a torn one.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class checkpoint_file {
 public:
  /**
   * Opens the checkpoint at @p path: reads the stored LSN if the file exists. A missing or empty
   * file means "no checkpoint yet"; the file is created by the first store().
   *
   * @return the checkpoint, or the OS error reading it, or `errc::checkpoint_store_failed` when
   * the file does not hold an LSN (its content is never shown).
   */
  [[nodiscard]] static auto open(std::filesystem::path path) -> result<checkpoint_file> {
    checkpoint_file f{std::move(path)};
    const detail::unique_fd fd{::open(f.path_.c_str(), O_RDONLY | O_CLOEXEC)};
    if (fd.get() < 0) {
      if (errno == ENOENT) return f;
      return detail::last_os_error();
    }
    char buf[64];
    std::size_t size = 0;
    for (;;) {
      const ssize_t n = ::read(fd.get(), buf + size, sizeof buf - size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return detail::last_os_error();
      if (n == 0) break;
      size += static_cast<std::size_t>(n);
      if (size == sizeof buf) return fail(errc::checkpoint_store_failed);  // far longer than an LSN
    }
    std::string_view text{buf, size};
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
    if (text.empty()) return f;
    const auto at = parse_lsn(text);
    if (!at) return fail(errc::checkpoint_store_failed);
    f.stored_ = *at;
    return f;
  }

  /// The stored commit LSN, if any. Never throws.
  [[nodiscard]] auto stored() const noexcept -> std::optional<lsn> { return stored_; }

  /// Replaces the stored LSN with @p at, durably (see the class comment).
  /// @return nothing, or the OS error of the step that failed (the old value is then still in place).
  [[nodiscard]] auto store(lsn at) -> result<void> {
    const std::filesystem::path temp = path_.string() + ".tmp";
    {
      detail::unique_fd fd{::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
      if (fd.get() < 0) return detail::last_os_error();
      if (auto w = detail::write_all(fd.get(), to_string(at) + "\n"); !w) return w;
      if (::fsync(fd.get()) != 0 || fd.close() != 0) return detail::last_os_error();
    }
    if (::rename(temp.c_str(), path_.c_str()) != 0) return detail::last_os_error();
    // The rename is durable only once the directory entry is.
    const auto dir = path_.has_parent_path() ? path_.parent_path() : std::filesystem::path{"."};
    const detail::unique_fd dir_fd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (dir_fd.get() < 0 || ::fsync(dir_fd.get()) != 0) return detail::last_os_error();
    stored_ = at;
    return {};
  }

 private:
  explicit checkpoint_file(std::filesystem::path path) noexcept : path_(std::move(path)) {}

  std::filesystem::path path_;
  std::optional<lsn> stored_;
};

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_OUTPUT_HPP
