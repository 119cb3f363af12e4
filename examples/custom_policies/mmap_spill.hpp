// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_CUSTOM_POLICIES_MMAP_SPILL_HPP
#define REPLICANT_EXAMPLES_CUSTOM_POLICIES_MMAP_SPILL_HPP

/// @file
/// A spill policy written outside the library, against the public concept only
/// (`replicant/spill/policy.hpp` and docs/spill.md): each spilled transaction goes to a temporary
/// file mapped into memory. Appending is a `memcpy` into the mapping and reading back is another,
/// with no system call per buffer; the kernel writes the pages out when memory is short.
///
/// Honest costs: the pages touched count in the process's resident set while they stay in memory
/// (they are file-backed, so the kernel can drop them once written back, which it cannot do for
/// anonymous memory), and the mapping is remapped, so its address changes, each time it grows.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/spill/policy.hpp>

#include <fcntl.h>
#include <stdlib.h>  // mkstemp
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace custom_policies {

/// The part: an unlinked temporary file, mapped shared, grown by doubling.
class mmap_part final : public replicant::spill_part {
 public:
  /// A new part in @p dir; `errc::io_failed` when the file cannot be made.
  static auto create(const std::filesystem::path& dir) -> replicant::result<std::unique_ptr<replicant::spill_part>> {
    std::string name = (dir / "mmap-spill-XXXXXX").string();
    const int fd = ::mkstemp(name.data());  // mode 0600, a name no one can guess
    if (fd < 0) return replicant::fail(replicant::errc::io_failed);
    ::unlink(name.c_str());  // it lives as long as the descriptor and the mapping
    try {
      return std::unique_ptr<replicant::spill_part>{new mmap_part{fd}};
    } catch (...) {  // std::bad_alloc
      ::close(fd);
      throw;
    }
  }

  mmap_part(const mmap_part&) = delete;
  auto operator=(const mmap_part&) -> mmap_part& = delete;
  ~mmap_part() override {
    if (map_ != nullptr) ::munmap(map_, capacity_);
    ::close(fd_);
  }

  auto append(std::span<const std::byte> bytes) -> replicant::result<void> override {
    if (bytes.size() > capacity_ - size_) {
      if (auto grown = grow(size_ + bytes.size()); !grown) return grown;
    }
    std::memcpy(static_cast<std::byte*>(map_) + size_, bytes.data(), bytes.size());
    size_ += bytes.size();
    return {};
  }

  // A shared mapping is the file: what was copied in is readable at once.
  auto flush() -> replicant::result<void> override { return {}; }

  auto read(std::uint64_t offset, std::span<std::byte> into) const -> replicant::result<std::size_t> override {
    if (offset >= size_) return std::size_t{0};
    const auto n = std::min<std::size_t>(into.size(), size_ - static_cast<std::size_t>(offset));
    std::memcpy(into.data(), static_cast<const std::byte*>(map_) + offset, n);
    return n;
  }

  // Keeps the capacity: the bytes past the new size are simply overwritten by the next appends.
  auto truncate(std::uint64_t size) -> replicant::result<void> override {
    if (size > size_) return replicant::fail(replicant::errc::io_failed);
    size_ = static_cast<std::size_t>(size);
    return {};
  }

  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return size_; }

 private:
  explicit mmap_part(int fd) noexcept : fd_(fd) {}

  // Makes room for at least `needed` bytes. The blocks are allocated here (posix_fallocate), so a
  // full disk is an error now rather than a SIGBUS when the mapping is written.
  auto grow(std::size_t needed) -> replicant::result<void> {
    constexpr std::size_t least = std::size_t{1} << 20U;
    const std::size_t capacity = std::max({needed, 2 * capacity_, least});
    if (::posix_fallocate(fd_, 0, static_cast<off_t>(capacity)) != 0)
      return replicant::fail(replicant::errc::io_failed);
    void* map = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (map == MAP_FAILED) return replicant::fail(replicant::errc::io_failed);
    if (map_ != nullptr) ::munmap(map_, capacity_);  // the new mapping sees the same file
    map_ = map;
    capacity_ = capacity;
    return {};
  }

  int fd_;
  void* map_ = nullptr;
  std::size_t capacity_ = 0;  // bytes mapped (and allocated in the file)
  std::size_t size_ = 0;      // bytes appended
};

/**
 * Spill policy: spilled transactions go to memory-mapped temporary files in `dir`.
 *
 * A model of `replicant::spill_policy` written against its requirements page only. Like
 * `disk_spill` it spills past a quarter of the budget and refuses a directory other users could
 * reach; unlike it, it has no default directory: the user names one.
 */
struct mmap_spill {
  /// Where the files go: an existing directory, owned by the user and writable by no one else.
  std::filesystem::path dir{};
  /// The most all parts may hold together. 0: 16 times the budget.
  std::uint64_t max_bytes = 0;

  [[nodiscard]] auto limits(const replicant::spill_context& ctx) const -> std::optional<replicant::spill_limits> {
    return replicant::spill_limits{ctx.budget / 4, max_bytes != 0 ? max_bytes : std::uint64_t{16} * ctx.budget};
  }

  // Refuses a directory that is missing, not ours, or one others may write into (value-free: the
  // error says io_failed, never which path).
  auto prepare(const replicant::spill_context& /*ctx*/) -> replicant::result<void> {
    struct stat st{};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      return replicant::fail(replicant::errc::io_failed);
    }
    return {};
  }

  auto open(const replicant::spill_context& /*ctx*/) -> replicant::result<std::unique_ptr<replicant::spill_part>> {
    return mmap_part::create(dir);
  }
};

}  // namespace custom_policies

#endif  // REPLICANT_EXAMPLES_CUSTOM_POLICIES_MMAP_SPILL_HPP
