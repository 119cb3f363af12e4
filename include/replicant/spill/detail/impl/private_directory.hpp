// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_DETAIL_IMPL_PRIVATE_DIRECTORY_HPP
#define REPLICANT_SPILL_DETAIL_IMPL_PRIVATE_DIRECTORY_HPP

// Out-of-line bodies of the private spill directory's checks and of the process's own directory.
// Included at the bottom of <replicant/spill/detail/private_directory.hpp> (which it includes
// nothing of back); with REPLICANT_SEPARATE_COMPILATION only by <replicant/spill/src.hpp>, so that
// the process's directory is one object of the one unit that defines it.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>

#include <stdlib.h>  // mkdtemp (POSIX)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

namespace replicant::detail {

REPLICANT_DECL auto is_private_directory(const struct stat& st) noexcept -> bool {
  return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

REPLICANT_DECL auto make_private_directory(std::filesystem::path dir) -> result<void> {
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

REPLICANT_DECL auto sweep_spill_files(const std::filesystem::path& dir, const std::string& prefix) noexcept -> void {
  try {
    std::error_code ec;
    for (std::filesystem::directory_iterator it{dir, ec}, end; !ec && it != end; it.increment(ec)) {
      const auto name = it->path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(".spill")) std::filesystem::remove(it->path(), ec);
    }
  } catch (...) {  // std::bad_alloc: the sweep is only a courtesy
  }
}

REPLICANT_DECL process_spill_directory_state::~process_spill_directory_state() {
  // Its files were unlinked as soon as they were opened: it is empty, or rmdir leaves it be.
  if (!path_.empty() && owner_ == ::getpid()) ::rmdir(path_.c_str());
}

REPLICANT_DECL auto process_spill_directory_state::get() -> result<std::filesystem::path> {
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

REPLICANT_DECL auto process_spill_directory() -> result<std::filesystem::path> {
  static process_spill_directory_state state;
  return state.get();
}

}  // namespace replicant::detail

#endif  // REPLICANT_SPILL_DETAIL_IMPL_PRIVATE_DIRECTORY_HPP
