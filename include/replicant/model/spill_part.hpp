// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_SPILL_PART_HPP
#define REPLICANT_MODEL_SPILL_PART_HPP

/// @file
/// replicant::spill_part: where the changes of a transaction too large for memory live until it is
/// delivered. Part of the model because a transaction reads its changes back from it; spill
/// policies (spill/policy.hpp) make parts.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace replicant {

/**
 * The bytes of one transaction's spilled changes, as a spill policy keeps them.
 *
 * The pipeline writes a transaction's changes into its part as an opaque stream of records
 * (appended only, except for a cut at a record boundary when a streamed subtransaction aborts),
 * and reads them back in order when the sink iterates the committed transaction. The part neither
 * knows nor cares what the bytes mean: where they live (a file, a mapping, compressed blocks, ...)
 * is the policy's whole business. One part belongs to one transaction and is destroyed with it,
 * after delivery or when the transaction is dropped; destroying it must release what it holds.
 *
 * Only transactions that actually spill pay for the virtual calls: a transaction held in memory
 * never has a part.
 *
 * Every failure is `errc::io_failed`, and is value-free: it never carries a byte of the data, a
 * path or any other text (the pipeline turns it into the halt `spill_io_failed`).
 *
 * @par Laws
 * - After `flush()`, `read` yields exactly the bytes appended so far, in order, from any offset.
 * - `size()` is the number of bytes appended (buffered or not), less what `truncate` cut.
 * - After `truncate(n)`, `size() == n`, `read` yields the first `n` bytes, and the next `append`
 *   continues at `n`.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe. The pipeline uses a part from its delivering
 * thread only.
 *
 * @see spill_policy, docs/spill.md
 */
class spill_part {
 public:
  /// Releases whatever the part holds (a descriptor, a mapping, memory). Never fails.
  virtual ~spill_part() = default;

  /**
   * Appends @p bytes after everything appended before. May keep them in a buffer: they need be
   * readable only after the next flush().
   * @return nothing, or `errc::io_failed` (a write failed, the storage is full). After a failure
   * the transaction is abandoned: nothing else is called but the destructor.
   */
  [[nodiscard]] virtual auto append(std::span<const std::byte> bytes) -> result<void> = 0;

  /**
   * Makes every byte appended so far readable through read(). Called before the transaction is
   * delivered and before a truncate(). It need not make anything durable: a crash discards the
   * transaction anyway, and the server sends it again.
   * @return nothing, or `errc::io_failed`.
   */
  [[nodiscard]] virtual auto flush() -> result<void> = 0;

  /**
   * Reads up to `into.size()` bytes starting at @p offset into @p into.
   *
   * @pre everything appended was flushed; `offset <= size()`.
   * @return the number of bytes read: at least 1 when `offset < size()` and `into` is not empty
   * (fewer than asked is fine, the caller asks again), 0 at `size()`; or `errc::io_failed`.
   */
  [[nodiscard]] virtual auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> = 0;

  /**
   * Keeps only the first @p size bytes (a streamed subtransaction aborted, and its changes, which
   * are the last ones, are cut).
   * @pre everything appended was flushed; `size <= this->size()`.
   * @return nothing, or `errc::io_failed`.
   */
  [[nodiscard]] virtual auto truncate(std::uint64_t size) -> result<void> = 0;

  /// Bytes appended and not cut by truncate(), whether flushed or still buffered. Never fails.
  [[nodiscard]] virtual auto size() const noexcept -> std::uint64_t = 0;

 protected:
  /// Only a policy's own part types make parts.
  spill_part() = default;
  /// Parts are held through `std::unique_ptr`: never copied or moved as a base.
  ///@{
  spill_part(const spill_part&) = default;
  spill_part(spill_part&&) = default;
  auto operator=(const spill_part&) -> spill_part& = default;
  auto operator=(spill_part&&) -> spill_part& = default;
  ///@}
};

}  // namespace replicant

#endif  // REPLICANT_MODEL_SPILL_PART_HPP
