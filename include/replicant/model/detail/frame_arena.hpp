// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_DETAIL_FRAME_ARENA_HPP
#define REPLICANT_MODEL_DETAIL_FRAME_ARENA_HPP

// Where a transaction keeps the bytes its changes view. Received messages are copied in as they
// arrive (one memcpy of a few hundred bytes, cheaper than keeping libpq's per-message allocation
// alive), and every change, value and message of the transaction is a view into these blocks.
// Blocks never move, so views stay valid until reset(); reset() keeps the first block so a
// steady stream of small transactions allocates nothing.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace replicant::detail {

class frame_arena {
 public:
  static constexpr std::size_t default_block_size = 64 * 1024;

  explicit frame_arena(std::size_t block_size = default_block_size) noexcept : block_size_(block_size) {}

  // Copies bytes into the arena; the returned view is stable until reset(). Throws std::bad_alloc.
  auto copy(std::span<const std::byte> bytes) -> std::span<const std::byte> {
    if (bytes.empty()) return {};
    if (blocks_.empty() || blocks_.back().capacity - blocks_.back().used < bytes.size()) add_block(bytes.size());
    block& b = blocks_.back();
    std::byte* at = b.data.get() + b.used;
    std::memcpy(at, bytes.data(), bytes.size());
    b.used += bytes.size();
    bytes_ += bytes.size();
    return {at, bytes.size()};
  }

  // Bytes copied in since the last reset (what counts against the resident budget).
  [[nodiscard]] auto size() const noexcept -> std::size_t { return bytes_; }

  // Forgets the contents, keeping the first block for reuse.
  auto reset() noexcept -> void {
    if (blocks_.size() > 1) blocks_.erase(blocks_.begin() + 1, blocks_.end());
    if (!blocks_.empty()) blocks_.front().used = 0;
    bytes_ = 0;
  }

 private:
  struct block {
    std::unique_ptr<std::byte[]> data;
    std::size_t capacity = 0;
    std::size_t used = 0;
  };

  auto add_block(std::size_t at_least) -> void {
    const std::size_t capacity = std::max(block_size_, at_least);
    blocks_.push_back(block{std::make_unique_for_overwrite<std::byte[]>(capacity), capacity, 0});
  }

  std::size_t block_size_;
  std::vector<block> blocks_;
  std::size_t bytes_ = 0;
};

}  // namespace replicant::detail

#endif  // REPLICANT_MODEL_DETAIL_FRAME_ARENA_HPP
