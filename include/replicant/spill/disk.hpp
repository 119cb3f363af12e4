// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_DISK_HPP
#define REPLICANT_SPILL_DISK_HPP

/// @file
/// replicant::disk_spill: transactions larger than memory are held partly on disk.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/result.hpp>
#include <replicant/spill/detail/private_directory.hpp>
#include <replicant/spill/policy.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
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
  ~spill_file_part() override;

  // Creates a file in dir named <prefix><pid>-<n>.spill, then unlinks it.
  static auto create(const std::filesystem::path& dir, const std::string& prefix)
      -> result<std::unique_ptr<spill_part>>;

  auto append(std::span<const std::byte> bytes) -> result<void> override;
  auto flush() -> result<void> override;
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> override;
  auto truncate(std::uint64_t size) -> result<void> override;
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
  [[nodiscard]] auto directory() const -> result<std::filesystem::path>;

  /// Spills past a quarter of the budget, and up to `max_spill_bytes` (or 16 budgets).
  [[nodiscard]] auto limits(const spill_context& ctx) const noexcept -> std::optional<spill_limits> {
    return spill_limits{ctx.budget / 4, max_spill_bytes != 0 ? max_spill_bytes : std::uint64_t{16} * ctx.budget};
  }

  /**
   * Makes the directory ready at the start of a session: made 0700 if absent, refused unless
   * private (see the class comment), then swept of the files this slot's dead processes left.
   * @return nothing, or `errc::io_failed` (value-free: the path is not in it).
   */
  [[nodiscard]] auto prepare(const spill_context& ctx) -> result<void>;

  /// A new part: an unlinked file in the directory. `errc::io_failed` when it cannot be made.
  [[nodiscard]] auto open(const spill_context& ctx) -> result<std::unique_ptr<spill_part>>;

 private:
  // File names start with replicant-<slot>-, so that the sweep at connect finds only this slot's.
  [[nodiscard]] static auto file_prefix(const spill_context& ctx) -> std::string {
    return "replicant-" + std::string{ctx.slot} + "-";
  }
};

}  // namespace replicant

// The file operations' bodies: in every unit header-only, in the one unit that includes
// <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/spill/impl/disk.hpp>
#endif

#endif  // REPLICANT_SPILL_DISK_HPP
