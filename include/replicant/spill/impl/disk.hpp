// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_IMPL_DISK_HPP
#define REPLICANT_SPILL_IMPL_DISK_HPP

// Out-of-line bodies of replicant::disk_spill and of its scratch file, detail::spill_file_part.
// Included at the bottom of <replicant/spill/disk.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/spill/src.hpp>, which then also holds the
// part's virtual table.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <system_error>

namespace replicant {

namespace detail {

REPLICANT_DECL spill_file_part::~spill_file_part() { ::close(fd_); }

REPLICANT_DECL auto spill_file_part::create(const std::filesystem::path& dir, const std::string& prefix)
    -> result<std::unique_ptr<spill_part>> {
  static std::atomic<std::uint64_t> counter{0};
  const auto name = dir / (prefix + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)) + ".spill");
  const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);  // O_EXCL: never a link
  if (fd < 0) return fail(errc::io_failed);
  ::unlink(name.c_str());  // from now on it lives exactly as long as the descriptor
  try {
    return std::unique_ptr<spill_part>{std::make_unique<spill_file_part>(fd)};
  } catch (...) {  // std::bad_alloc
    ::close(fd);
    throw;
  }
}

REPLICANT_DECL auto spill_file_part::append(std::span<const std::byte> bytes) -> result<void> {
  pending_.insert(pending_.end(), bytes.begin(), bytes.end());
  size_ += bytes.size();
  if (pending_.size() >= buffer_size) return flush();
  return {};
}

REPLICANT_DECL auto spill_file_part::flush() -> result<void> {
  const std::uint64_t at = size_ - pending_.size();
  std::size_t done = 0;
  while (done < pending_.size()) {
    const auto n = ::pwrite(fd_, pending_.data() + done, pending_.size() - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(errc::io_failed);  // a full disk, a file-size limit, ...
    done += static_cast<std::size_t>(n);
  }
  pending_.clear();
  return {};
}

REPLICANT_DECL auto spill_file_part::read(std::uint64_t offset, std::span<std::byte> into) const
    -> result<std::size_t> {
  const std::uint64_t written = size_ - pending_.size();
  if (offset >= written || into.empty()) return std::size_t{0};
  const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(into.size(), written - offset));
  for (;;) {
    const auto got = ::pread(fd_, into.data(), want, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return fail(errc::io_failed);
    return static_cast<std::size_t>(got);
  }
}

REPLICANT_DECL auto spill_file_part::truncate(std::uint64_t size) -> result<void> {
  if (auto f = flush(); !f) return f;
  if (size > size_) return fail(errc::io_failed);
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return fail(errc::io_failed);
  size_ = size;
  return {};
}

}  // namespace detail

REPLICANT_DECL auto disk_spill::directory() const -> result<std::filesystem::path> {
  if (!dir.empty()) return dir;
  return detail::process_spill_directory();
}

REPLICANT_DECL auto disk_spill::prepare(const spill_context& ctx) -> result<void> {
  auto where = directory();
  if (!where) return unexpected(where.error());
  if (auto ok = detail::make_private_directory(*where); !ok) return ok;
  detail::sweep_spill_files(*where, file_prefix(ctx));
  return {};
}

REPLICANT_DECL auto disk_spill::open(const spill_context& ctx) -> result<std::unique_ptr<spill_part>> {
  auto where = directory();
  if (!where) return unexpected(where.error());
  return detail::spill_file_part::create(*where, file_prefix(ctx));
}

}  // namespace replicant

#endif  // REPLICANT_SPILL_IMPL_DISK_HPP
