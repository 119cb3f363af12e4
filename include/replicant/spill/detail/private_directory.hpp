// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_DETAIL_PRIVATE_DIRECTORY_HPP
#define REPLICANT_SPILL_DETAIL_PRIVATE_DIRECTORY_HPP

// Where disk_spill may put row data: a directory no other user can read, list or plant files in.
// A user's directory is made 0700 when absent and checked when present (owner, write bits); the
// default is a mkdtemp directory of the process's own, removed at exit. All failures are
// errc::io_failed and carry no path.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <stdlib.h>  // mkdtemp (POSIX)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

namespace replicant::detail {

// Whether st describes a directory only the effective user can change.
inline auto is_private_directory(const struct stat& st) noexcept -> bool {
  return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// Makes dir mode 0700 if it does not exist (its parents as create_directories would), then requires
// it to be a directory owned by the effective user and writable by no one else. A symbolic link is
// followed: what counts is the directory the files would land in.
inline auto make_private_directory(std::filesystem::path dir) -> result<void> {
  if (!dir.has_filename()) dir = dir.parent_path();  // "a/b/" names b
  if (dir.empty()) return fail(errc::io_failed);
  struct stat st{};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return fail(errc::io_failed);
    std::error_code ec;
    if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
    if (ec) return fail(errc::io_failed);
    // mode 0700 from the start (never wider, not even for an instant); EEXIST: made meanwhile,
    // checked below like any existing directory.
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return fail(errc::io_failed);
    if (::stat(dir.c_str(), &st) != 0) return fail(errc::io_failed);
  }
  if (!is_private_directory(st)) return fail(errc::io_failed);
  return {};
}

// Removes the spill files under dir whose names start with prefix (left by a process that died in
// the instant between creating and unlinking one). Best effort: never fails.
inline auto sweep_spill_files(const std::filesystem::path& dir, const std::string& prefix) noexcept -> void {
  try {
    std::error_code ec;
    for (std::filesystem::directory_iterator it{dir, ec}, end; !ec && it != end; it.increment(ec)) {
      const auto name = it->path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(".spill")) std::filesystem::remove(it->path(), ec);
    }
  } catch (...) {  // std::bad_alloc: the sweep is only a courtesy
  }
}

// The process's own spill directory: made by mkdtemp (0700, unpredictable name) on first use, made
// anew if it disappeared (a cleaner of the temporary directory), and removed at exit by the process
// that made it (a forked child makes its own and leaves its parent's alone).
class process_spill_directory_state {
 public:
  process_spill_directory_state() = default;
  process_spill_directory_state(const process_spill_directory_state&) = delete;
  auto operator=(const process_spill_directory_state&) -> process_spill_directory_state& = delete;
  ~process_spill_directory_state() {
    // Its files were unlinked as soon as they were opened: it is empty, or rmdir leaves it be.
    if (!path_.empty() && owner_ == ::getpid()) ::rmdir(path_.c_str());
  }

  auto get() -> result<std::filesystem::path> {
    const std::lock_guard lock{mutex_};
    struct stat st{};
    if (!path_.empty() && owner_ == ::getpid() && ::lstat(path_.c_str(), &st) == 0 && is_private_directory(st)) {
      return path_;
    }
    std::error_code ec;
    auto tmp = std::filesystem::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    std::string name = (tmp / "replicant-spill-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) return fail(errc::io_failed);
    path_ = name;
    owner_ = ::getpid();
    return path_;
  }

 private:
  std::mutex mutex_;
  std::filesystem::path path_;
  pid_t owner_ = 0;
};

inline auto process_spill_directory() -> result<std::filesystem::path> {
  static process_spill_directory_state state;
  return state.get();
}

}  // namespace replicant::detail

#endif  // REPLICANT_SPILL_DETAIL_PRIVATE_DIRECTORY_HPP
