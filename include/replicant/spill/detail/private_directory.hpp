// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_DETAIL_PRIVATE_DIRECTORY_HPP
#define REPLICANT_SPILL_DETAIL_PRIVATE_DIRECTORY_HPP

// Where disk_spill may put row data: a directory no other user can read, list or plant files in.
// A user's directory is made 0700 when absent and checked when present (owner, write bits); the
// default is a mkdtemp directory of the process's own, removed at exit. All failures are
// errc::io_failed and carry no path.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/result.hpp>

#include <sys/stat.h>
#include <sys/types.h>  // pid_t

#include <filesystem>
#include <mutex>
#include <string>

namespace replicant::detail {

// Whether st describes a directory only the effective user can change.
REPLICANT_DECL auto is_private_directory(const struct stat& st) noexcept -> bool;

// Makes dir mode 0700 if it does not exist (its parents as create_directories would), then requires
// it to be a directory owned by the effective user and writable by no one else. A symbolic link is
// followed: what counts is the directory the files would land in.
REPLICANT_DECL auto make_private_directory(std::filesystem::path dir) -> result<void>;

// Removes the spill files under dir whose names start with prefix (left by a process that died in
// the instant between creating and unlinking one). Best effort: never fails.
REPLICANT_DECL auto sweep_spill_files(const std::filesystem::path& dir, const std::string& prefix) noexcept -> void;

// The process's own spill directory: made by mkdtemp (0700, unpredictable name) on first use, made
// anew if it disappeared (a cleaner of the temporary directory), and removed at exit by the process
// that made it (a forked child makes its own and leaves its parent's alone).
class process_spill_directory_state {
 public:
  process_spill_directory_state() = default;
  process_spill_directory_state(const process_spill_directory_state&) = delete;
  auto operator=(const process_spill_directory_state&) -> process_spill_directory_state& = delete;
  ~process_spill_directory_state();

  auto get() -> result<std::filesystem::path>;

 private:
  std::mutex mutex_;
  std::filesystem::path path_;
  pid_t owner_ = 0;
};

// The process's spill directory (see process_spill_directory_state): one per process, made on first use.
REPLICANT_DECL auto process_spill_directory() -> result<std::filesystem::path>;

}  // namespace replicant::detail

// The file system calls' bodies: in every unit header-only, in the one unit that includes
// <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/spill/detail/impl/private_directory.hpp>
#endif

#endif  // REPLICANT_SPILL_DETAIL_PRIVATE_DIRECTORY_HPP
