// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_DETAIL_DURABLE_FILE_HPP
#define REPLICANT_CHECKPOINT_DETAIL_DURABLE_FILE_HPP

/// @file
/// Small POSIX file helpers for state that must survive a crash: replace a file atomically and
/// durably, and read a small file whole. std::ofstream cannot fsync, hence the raw calls.
/// Every failure is `errc::io_failed`: the errno and the path stay here (neither is value-free
/// enough to travel: a path can name a customer, and callers only need "the disk failed").

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::detail {

// Closes a descriptor on scope exit unless released; close errors that matter are checked
// explicitly before release.
class unique_fd {
 public:
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(const unique_fd&) = delete;
  auto operator=(const unique_fd&) -> unique_fd& = delete;
  ~unique_fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] auto get() const noexcept -> int { return fd_; }
  [[nodiscard]] auto release() noexcept -> int {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// fsync, repeated when a signal interrupts it. Any other failure is final: after a failed fsync
// the kernel may already have dropped the dirty pages, so a second fsync "succeeding" proves
// nothing (PostgreSQL's 2018 fsync lesson). The caller must write everything again.
inline auto fsync_fd(int fd) noexcept -> int {
  int rc = 0;
  do rc = ::fsync(fd);
  while (rc != 0 && errno == EINTR);
  return rc;
}

// Writes all of @p bytes, resuming after short writes and signals.
inline auto write_all(int fd, std::string_view bytes) noexcept -> result<void> {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errc::io_failed);  // ENOSPC, EFBIG, EIO, EDQUOT, ...
    }
    if (n == 0) return fail(errc::io_failed);  // no progress and no error: do not spin
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

// Makes a completed rename in @p directory durable. Some file systems refuse fsync on a directory
// with EINVAL; like PostgreSQL's fsync_fname, that is taken as "nothing to flush".
inline auto fsync_directory(const std::filesystem::path& directory) noexcept -> result<void> {
  const unique_fd dir{::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.get() < 0) return fail(errc::io_failed);
  if (fsync_fd(dir.get()) != 0 && errno != EINVAL) return fail(errc::io_failed);
  return {};
}

/*
 * Replaces @p target by a file holding exactly @p bytes, so that after a crash at any point the
 * target holds either its old content or the new one, never a mix, and once this returned the new
 * content survives a power loss.
 *
 * The classic sequence: write a sibling @p temp (same directory, hence same file system, so the
 * rename is atomic), fsync it (the data is on disk before the name points at it), rename over the
 * target, fsync the directory (the rename itself is on disk). On failure before the rename the
 * temporary file is removed best-effort and the target is untouched; a failure of the directory
 * fsync leaves the new content in place but possibly not durable, which the caller must treat as
 * a failed write (writing again is harmless).
 */
inline auto replace_file_durably(const std::filesystem::path& target, const std::filesystem::path& temp,
                                 const std::filesystem::path& directory, std::string_view bytes) noexcept
    -> result<void> {
  const auto abandon = [&temp]() noexcept {
    ::unlink(temp.c_str());
    return fail(errc::io_failed);
  };
  // O_TRUNC: a temporary file left by a crash mid-write is simply overwritten.
  unique_fd fd{::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644)};
  if (fd.get() < 0) return fail(errc::io_failed);  // nothing created (missing directory, EACCES, ...)
  if (!write_all(fd.get(), bytes)) return abandon();
  if (fsync_fd(fd.get()) != 0) return abandon();
  // close can report a deferred write error (NFS). EINTR still closes the descriptor on Linux,
  // and the data is already synced, so it is no failure.
  if (::close(fd.release()) != 0 && errno != EINTR) return abandon();
  if (::rename(temp.c_str(), target.c_str()) != 0) return abandon();
  return fsync_directory(directory);
}

/*
 * Reads a regular file whole, up to @p limit bytes plus one (so a caller can tell "too large"
 * without reading a huge file). A missing file is std::nullopt; anything else that goes wrong,
 * including a path that names a directory or a FIFO, is `errc::io_failed`.
 */
inline auto read_small_file(const std::filesystem::path& file, std::size_t limit)
    -> result<std::optional<std::string>> {
  // O_NONBLOCK: opening a FIFO must not wait for a writer. It changes nothing for a regular file.
  const unique_fd fd{::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::optional<std::string>{};
    return fail(errc::io_failed);  // EACCES, ENOTDIR, ELOOP, EIO, ...
  }
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return fail(errc::io_failed);
  std::string out(limit + 1, '\0');
  std::size_t used = 0;
  while (used < out.size()) {
    const ssize_t n = ::read(fd.get(), out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errc::io_failed);
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  out.resize(used);
  return std::optional<std::string>{std::move(out)};
}

}  // namespace replicant::detail

#endif  // REPLICANT_CHECKPOINT_DETAIL_DURABLE_FILE_HPP
