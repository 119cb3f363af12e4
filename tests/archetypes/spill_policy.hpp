// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_ARCHETYPES_SPILL_POLICY_HPP
#define REPLICANT_TESTS_ARCHETYPES_SPILL_POLICY_HPP

// The minimal spill policy: exactly the members replicant::spill_policy requires and nothing else
// (not default-constructible, not copyable), with a part that keeps its bytes in memory. Code
// instantiated with it proves it needs nothing more of a policy (Asio's archetypes).

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/spill/policy.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace archetypes {

// A part in memory: what every part must do, and no more.
class memory_part final : public replicant::spill_part {
 public:
  auto append(std::span<const std::byte> bytes) -> replicant::result<void> override {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return {};
  }
  auto flush() -> replicant::result<void> override { return {}; }
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> replicant::result<std::size_t> override {
    if (offset >= bytes_.size()) return std::size_t{0};
    const auto n = std::min(into.size(), bytes_.size() - static_cast<std::size_t>(offset));
    std::memcpy(into.data(), bytes_.data() + offset, n);
    return n;
  }
  auto truncate(std::uint64_t size) -> replicant::result<void> override {
    bytes_.resize(static_cast<std::size_t>(size));
    return {};
  }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return bytes_.size(); }

 private:
  std::vector<std::byte> bytes_;
};

class spill_policy {
 public:
  spill_policy() = delete;  // a policy need not be default-constructible
  explicit spill_policy(int /*tag*/) {}
  spill_policy(const spill_policy&) = delete;  // nor copyable: movable is enough
  spill_policy(spill_policy&&) = default;
  auto operator=(const spill_policy&) -> spill_policy& = delete;
  auto operator=(spill_policy&&) -> spill_policy& = delete;
  ~spill_policy() = default;

  [[nodiscard]] auto limits(const replicant::spill_context& ctx) const -> std::optional<replicant::spill_limits> {
    return replicant::spill_limits{ctx.budget / 4, std::uint64_t{16} * ctx.budget};
  }
  auto prepare(const replicant::spill_context& /*ctx*/) -> replicant::result<void> { return {}; }
  auto open(const replicant::spill_context& /*ctx*/) -> replicant::result<std::unique_ptr<replicant::spill_part>> {
    return std::unique_ptr<replicant::spill_part>{std::make_unique<memory_part>()};
  }
};

}  // namespace archetypes

#endif  // REPLICANT_TESTS_ARCHETYPES_SPILL_POLICY_HPP
