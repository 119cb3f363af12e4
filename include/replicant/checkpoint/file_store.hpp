// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_FILE_STORE_HPP
#define REPLICANT_CHECKPOINT_FILE_STORE_HPP

/// @file
/// replicant::file_checkpoint_store: a slot's checkpoint in a local file, replaced crash-safely.

#include <replicant/checkpoint/store.hpp>
#include <replicant/core/detail/bounded_call.hpp>
#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant {

namespace detail {

// The first line of a checkpoint file. The number is the format version: a file whose first line
// differs (another version, another program's file) is never guessed at.
inline constexpr std::string_view checkpoint_file_magic = "replicant-checkpoint 1";

// A checkpoint file is about 100 bytes; anything much larger is not one, and is not read whole.
inline constexpr std::size_t checkpoint_file_limit = 4096;

// Takes the next '\n'-terminated line off @p text; nothing when no terminator is left.
REPLICANT_DECL auto take_line(std::string_view& text) noexcept -> std::optional<std::string_view>;

// Takes "<key> <value>" off @p text and returns the value, or nothing if the line is not that.
REPLICANT_DECL auto take_field(std::string_view& text, std::string_view key) noexcept
    -> std::optional<std::string_view>;

// The file's bytes for @p slot at @p at.
REPLICANT_DECL auto format_checkpoint_file(const slot_name& slot, lsn at) -> std::string;

// Parses a whole checkpoint file written for @p slot. Anything but exactly the three lines that
// format_checkpoint_file() writes, for this slot, is `store_mismatch`.
REPLICANT_DECL auto parse_checkpoint_file(std::string_view text, const slot_name& slot) noexcept -> result<lsn>;

// The first line of a progress file (see file_checkpoint_store::write_progress).
inline constexpr std::string_view progress_file_magic = "replicant-snapshot-progress 1";

// A progress token holds one key; a megabyte is far more than any key the server can index.
inline constexpr std::size_t progress_file_limit = std::size_t{1} << 20U;

// The progress file's bytes: the magic, the slot, the token's length, then the token itself, which
// may hold any character (a key's text), newlines included.
REPLICANT_DECL auto format_progress_file(const slot_name& slot, std::string_view token) -> std::string;

// Parses a whole progress file written for @p slot; anything else is `store_mismatch`.
REPLICANT_DECL auto parse_progress_file(std::string_view text, const slot_name& slot) -> result<std::string>;

}  // namespace detail

/**
 * Settings of a @ref replicant::file_checkpoint_store.
 *
 * @par Example
 * @code
 * replicant::file_store_options slow_disk{.io_timeout = std::chrono::seconds(30)};
 * replicant::file_checkpoint_store store{"/var/lib/orders-export/checkpoint", slow_disk};
 * @endcode
 */
struct file_store_options {
  /// The longest a read or a write may take (a write is two `fsync`s and a `rename`). Past it the
  /// call fails `errc::io_failed`, a transient fault, and the pipeline's retry budget decides what
  /// happens next. Must be positive.
  std::chrono::milliseconds io_timeout = std::chrono::seconds(10);
};

/**
 * A @ref replicant::checkpoint_store that keeps one slot's checkpoint in one local file.
 *
 * For a pipeline whose sink writes somewhere without transactions (files, object storage, an API)
 * and that runs next to a disk that outlives the process. The file is small text, meant to be
 * readable by people and by `grep`:
 *
 * ```
 * replicant-checkpoint 1
 * slot orders_cdc
 * commit_lsn 16/B374D848
 * ```
 *
 * **Writes are crash-safe.** The new content goes to `<file>.tmp` in the same directory, is
 * fsynced, renamed over the file, and the directory is fsynced. A crash at any point leaves either
 * the previous checkpoint or the new one, never a torn file; once write() returned, the new one
 * survives a power loss (on storage that honours fsync).
 *
 * **Reads never start over silently.** A missing file means "no checkpoint yet" (`std::nullopt`).
 * A file of another slot, of another format version or that does not parse is
 * `errc::store_mismatch`, a permanent fault: the pipeline halts rather than replay or skip history.
 *
 * It is also a @ref replicant::progress_store "progress_store": an incremental snapshot's progress
 * goes to `<file>.progress`, written the same crash-safe way.
 *
 * **Calls are bounded.** A file system can block a thread in the kernel for as long as it likes (a
 * hard NFS mount whose server is gone, a disk whose `fsync` never returns, a FIFO left where the
 * temporary file goes), and such a thread cannot be stopped. So the file operations run on a thread
 * of the store's own, and a call waits for them at most `io_timeout` (and only until interrupt(),
 * which a pipeline's stop() calls). A call given up on goes on in the background; the next call
 * first waits for it, within its own timeout, so two writes never overlap and a late one never
 * lands after a later one. A store destroyed while its thread is blocked leaves that thread to end
 * when the file system answers.
 *
 * @par Errors
 * Error codes only; the path is never part of one. `errc::io_failed` (transient) for any failed
 * file operation: a missing or unwritable directory, a full disk (`ENOSPC`), an exceeded file size
 * limit (`EFBIG`), an I/O error (`EIO`), an unreadable file (`EACCES`), and for a call that did not
 * finish within `io_timeout` (or found the previous one still blocked). `errc::cancelled`
 * (transient) when interrupt() ended the call. `errc::store_mismatch` (permanent) as above.
 * `errc::invalid_options` (permanent) for an empty path, one without a file name, or a
 * non-positive `io_timeout`.
 *
 * @par Example
 * @code
 * replicant::file_checkpoint_store store{"/var/lib/orders-export/checkpoint"};
 * auto slot = replicant::slot_name::make("orders_cdc").value();
 * if (auto w = store.write(slot, replicant::lsn{0x16'B374'D848}); !w) return w.error();
 * auto at = store.read(slot);   // result<std::optional<lsn>>: 16/B374D848
 * @endcode
 *
 * @par Thread safety
 * One thread at a time per object, except interrupt(), which any thread or a signal handler may
 * call at any time; and one writer per file: two stores writing the same file share the temporary
 * file name and can corrupt each other's write. A copy has the path and options of the original and
 * a thread of its own.
 *
 * @see replicant::checkpoint_store, replicant::postgres_checkpoint_store
 */
class file_checkpoint_store {
 public:
  /**
   * A store keeping its checkpoint in @p file, with the timeout of @p options. Nothing is touched
   * (and no thread started) until the first call.
   *
   * The directory must exist when write() is called; it is not created, because a missing
   * directory is more often a missing mount than a fresh install.
   * @throws std::bad_alloc only.
   */
  explicit file_checkpoint_store(std::filesystem::path file, file_store_options options = {});

  /// The same path and options, with a thread of its own. @throws std::bad_alloc only.
  file_checkpoint_store(const file_checkpoint_store& other);
  /// As the copy constructor. @throws std::bad_alloc only.
  auto operator=(const file_checkpoint_store& other) -> file_checkpoint_store&;
  /// Takes over @p other's path, options and thread; @p other may then only be destroyed or
  /// assigned to. Never throws.
  file_checkpoint_store(file_checkpoint_store&& other) noexcept = default;
  /// As the move constructor. Never throws.
  auto operator=(file_checkpoint_store&& other) noexcept -> file_checkpoint_store& = default;
  /// Joins the store's thread, or, if a file operation still blocks it, leaves it to end by
  /// itself. Never throws.
  ~file_checkpoint_store() = default;

  /**
   * The checkpoint last written for @p slot, or `std::nullopt` when the file does not exist.
   * @return the LSN, nothing, `errc::store_mismatch` (another slot's file, another format, garbage),
   *         `errc::io_failed` (the file exists but cannot be read) or `errc::invalid_options`.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto read(const slot_name& slot) const -> result<std::optional<lsn>>;

  /**
   * Makes @p at the checkpoint of @p slot, durably, replacing the file whatever it held.
   * @return nothing, `errc::io_failed` (the previous file is then intact, and no temporary file is
   *         left behind when it could be removed) or `errc::invalid_options`.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto write(const slot_name& slot, lsn at) -> result<void>;

  /**
   * The incremental-snapshot progress last written for @p slot, from `<file>.progress`, or
   * `std::nullopt` when that file does not exist.
   * @return the token, nothing, `errc::store_mismatch`, `errc::io_failed` or `errc::invalid_options`.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto read_progress(const slot_name& slot) const -> result<std::optional<std::string>>;

  /**
   * Makes @p token the incremental-snapshot progress of @p slot, durably, in `<file>.progress`.
   * @return nothing, `errc::io_failed` (the previous file is intact) or `errc::invalid_options`
   *         (also for a token too large to be one).
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto write_progress(const slot_name& slot, std::string_view token) -> result<void>;

  /**
   * Ends a call in progress on another thread at once, with `errc::cancelled`; its file operation
   * goes on in the background, as after a timeout. A call that starts afterwards is not affected.
   * Never throws; async-signal-safe (a pipeline's stop() calls it).
   */
  auto interrupt() noexcept -> void {
    if (interrupter_) interrupter_->interrupt();
  }

  /// The checkpoint file. Never throws.
  [[nodiscard]] auto path() const noexcept -> const std::filesystem::path& { return file_; }

  /// The settings. Never throws.
  [[nodiscard]] auto options() const noexcept -> const file_store_options& { return options_; }

 private:
  // Runs @p job on the store's thread, waiting for it at most io_timeout and until interrupt().
  template <class R>
  auto bounded(std::function<result<R>()> job) const -> result<R> {
    const detail::armed_call armed{interrupter_.get()};
    if (!worker_) worker_ = std::make_unique<detail::blocking_worker>();
    return worker_->run<R>(std::move(job), options_.io_timeout, interrupter_ ? interrupter_->fd() : -1,
                           errc::io_failed);
  }

  std::filesystem::path file_;
  file_store_options options_;
  std::filesystem::path temp_;           // <file>.tmp; empty when the path or the options were refused
  std::filesystem::path directory_;      // fsynced after the rename
  std::filesystem::path progress_;       // <file>.progress
  std::filesystem::path progress_temp_;  // <file>.progress.tmp
  // On the heap so that the store stays movable and stop() can reach the interrupter while the
  // pipeline owns the store; the worker is made by the first call, one per object.
  std::unique_ptr<detail::call_interrupter> interrupter_ = std::make_unique<detail::call_interrupter>();
  mutable std::unique_ptr<detail::blocking_worker> worker_;
};

static_assert(progress_store<file_checkpoint_store>);
static_assert(interruptible_store<file_checkpoint_store>);

}  // namespace replicant

// The file format's and the store's bodies: in every unit header-only, in the one unit that
// includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/checkpoint/impl/file_store.hpp>
#endif

#endif  // REPLICANT_CHECKPOINT_FILE_STORE_HPP
