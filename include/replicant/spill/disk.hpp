// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_DISK_HPP
#define REPLICANT_SPILL_DISK_HPP

/// @file
/// replicant::disk_spill: transactions larger than memory are held partly on disk.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/spill/detail/private_directory.hpp>
#include <replicant/spill/policy.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace replicant {

namespace detail {

// A disk_spill part: one scratch file, created 0600 and unlinked at once, so that it lives exactly
// as long as its descriptor however the process ends. Appends go through a buffer; nothing is
// fsynced (a crash discards the transaction anyway, and the server sends it again).
class spill_file_part final : public spill_part {
 public:
  static constexpr std::size_t buffer_size = 256 * 1024;

  explicit spill_file_part(int fd) noexcept : fd_(fd) {}
  spill_file_part(const spill_file_part&) = delete;
  spill_file_part(spill_file_part&&) = delete;
  auto operator=(const spill_file_part&) -> spill_file_part& = delete;
  auto operator=(spill_file_part&&) -> spill_file_part& = delete;
  ~spill_file_part() override { ::close(fd_); }

  // Creates a file in dir named <prefix><pid>-<n>.spill, then unlinks it.
  static auto create(const std::filesystem::path& dir, const std::string& prefix)
      -> result<std::unique_ptr<spill_part>> {
    static std::atomic<std::uint64_t> counter{0};
    const auto name =
        dir / (prefix + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)) + ".spill");
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

  auto append(std::span<const std::byte> bytes) -> result<void> override {
    pending_.insert(pending_.end(), bytes.begin(), bytes.end());
    size_ += bytes.size();
    if (pending_.size() >= buffer_size) return flush();
    return {};
  }

  auto flush() -> result<void> override {
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

  auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> override {
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

  auto truncate(std::uint64_t size) -> result<void> override {
    if (auto f = flush(); !f) return f;
    if (size > size_) return fail(errc::io_failed);
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return fail(errc::io_failed);
    size_ = size;
    return {};
  }

  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return size_; }

 private:
  int fd_;
  std::uint64_t size_ = 0;          // bytes appended, written or buffered
  std::vector<std::byte> pending_;  // appended, not yet written
};

}  // namespace detail

/**
 * Spill policy: a transaction too large for the resident budget is held partly on disk, and
 * delivered all the same.
 *
 * While the transactions in progress hold more than a quarter of `max_inflight_bytes`, the largest
 * of them moves the changes it holds to a scratch file of its own. At commit the sink receives it
 * as usual, but its `changes()` then reads the spilled changes back as the iteration goes: a
 * single-pass range, each change valid only until the iterator moves on, and only during the
 * callback (see @ref change_range). Memory stays bounded by the budget whatever the transaction's
 * size; disk use is bounded by `max_spill_bytes`, past which the pipeline halts `spill_exhausted`
 * with nothing acknowledged. A file that cannot be written or read back halts `spill_io_failed`.
 *
 * **The directory is private.** Spill files hold row data, so they go only where no other user can
 * reach them:
 * - with `dir` empty (the default), into a directory private to the process: made with `mkdtemp`
 *   (mode 0700, a random name, `replicant-spill-XXXXXX` under the system's temporary directory) on
 *   first use, shared by the process's pipelines, and removed when the process exits;
 * - with `dir` set, into that directory, made mode 0700 if it does not exist. An existing one must
 *   be owned by the effective user and writable by nobody else (no group or world write bit),
 *   or every session halts `spill_io_failed` at its start: a shared `/tmp` is refused, and so is a
 *   directory another user made in advance.
 *
 * Each file is created mode 0600 and unlinked as soon as it is open, so it disappears with the
 * process however it ends; files this slot's earlier processes left (one that died in the instant
 * between the two) are removed at every connect. They are not encrypted: if the rows are
 * sensitive, point `dir` at a volume that is.
 *
 * @par Example
 * @code
 * replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::disk_spill, my_sink>
 *     p{sink, pgoutput_options, replicant::sink_owned_checkpoint{}, replicant::disk_spill{.dir = "/var/lib/app/spill"},
 *       options};
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: safe to call `limits`; the pipeline calls the rest from
 * its delivering thread only.
 *
 * @see spill_policy, docs/spill.md
 */
struct disk_spill {
  /// Where spill files go. Empty: a directory private to the process (see above).
  std::filesystem::path dir{};
  /// The most bytes all spill files may hold together. 0: 16 times `max_inflight_bytes`.
  std::uint64_t max_spill_bytes = 0;

  /**
   * `dir`, or the process's private directory when it is empty (made on first use).
   * @return the directory, or `errc::io_failed` when the private one cannot be made.
   */
  [[nodiscard]] auto directory() const -> result<std::filesystem::path> {
    if (!dir.empty()) return dir;
    return detail::process_spill_directory();
  }

  /// Spills past a quarter of the budget, and up to `max_spill_bytes` (or 16 budgets).
  [[nodiscard]] auto limits(const spill_context& ctx) const noexcept -> std::optional<spill_limits> {
    return spill_limits{ctx.budget / 4, max_spill_bytes != 0 ? max_spill_bytes : std::uint64_t{16} * ctx.budget};
  }

  /**
   * Makes the directory ready at the start of a session: made 0700 if absent, refused unless
   * private (see the class comment), then swept of the files this slot's dead processes left.
   * @return nothing, or `errc::io_failed` (value-free: the path is not in it).
   */
  [[nodiscard]] auto prepare(const spill_context& ctx) -> result<void> {
    auto where = directory();
    if (!where) return unexpected(where.error());
    if (auto ok = detail::make_private_directory(*where); !ok) return ok;
    detail::sweep_spill_files(*where, file_prefix(ctx));
    return {};
  }

  /// A new part: an unlinked file in the directory. `errc::io_failed` when it cannot be made.
  [[nodiscard]] auto open(const spill_context& ctx) -> result<std::unique_ptr<spill_part>> {
    auto where = directory();
    if (!where) return unexpected(where.error());
    return detail::spill_file_part::create(*where, file_prefix(ctx));
  }

 private:
  // File names start with replicant-<slot>-, so that the sweep at connect finds only this slot's.
  [[nodiscard]] static auto file_prefix(const spill_context& ctx) -> std::string {
    return "replicant-" + std::string{ctx.slot} + "-";
  }
};

}  // namespace replicant

#endif  // REPLICANT_SPILL_DISK_HPP
