// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_DISK_HPP
#define REPLICANT_SPILL_DISK_HPP

/// @file
/// replicant::disk_spill: transactions larger than memory are held partly on disk.

#include <cstdint>
#include <filesystem>
#include <system_error>

namespace replicant {

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
 * The files are created mode 0600 in `dir` (made 0700 if it does not exist) and unlinked as soon
 * as they are opened, so they disappear with the process however it ends; files of this slot left
 * by older versions are also removed at every connect. They are not encrypted: if the rows are
 * sensitive, point `dir` at a volume that is.
 *
 * @par Example
 * @code
 * replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::disk_spill, my_sink>
 *     p{sink, replicant::sink_owned_checkpoint{}, replicant::disk_spill{.dir = "/var/lib/app/spill"}, options};
 * @endcode
 */
struct disk_spill {
  /// Where spill files go. Empty: `replicant-spill` under the system's temporary directory.
  std::filesystem::path dir{};
  /// The most bytes all spill files may hold together. 0: 16 times `max_inflight_bytes`.
  std::uint64_t max_spill_bytes = 0;

  /// `dir`, or the default when it is empty.
  [[nodiscard]] auto directory() const -> std::filesystem::path {
    if (!dir.empty()) return dir;
    std::error_code ec;
    auto tmp = std::filesystem::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    return tmp / "replicant-spill";
  }
};

}  // namespace replicant

#endif  // REPLICANT_SPILL_DISK_HPP
