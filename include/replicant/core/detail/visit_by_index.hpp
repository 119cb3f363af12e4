// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_VISIT_BY_INDEX_HPP
#define REPLICANT_CORE_DETAIL_VISIT_BY_INDEX_HPP

/// @file
/// `detail::visit_by_index`: `std::visit` for one variant, without its table of function pointers.

#include <cstddef>
#include <type_traits>
#include <variant>

namespace replicant::detail {

/// The alternatives from @p I on: the one @p v holds, found by comparing its index in turn.
template <std::size_t I, class Variant, class F>
constexpr auto visit_from(Variant& v, F& f) -> decltype(f(*std::get_if<0>(&v))) {
  if constexpr (I + 1 == std::variant_size_v<std::remove_const_t<Variant>>) {
    return f(*std::get_if<I>(&v));  // every other index was ruled out
  } else {
    if (v.index() == I) return f(*std::get_if<I>(&v));
    return detail::visit_from<I + 1>(v, f);
  }
}

/**
 * Calls @p f with the alternative @p v holds and returns what it returns, as `std::visit(f, v)`
 * does. It compares the index with each alternative's in turn (which an optimiser makes a jump
 * table) instead of instantiating libstdc++'s table of function pointers, whose compile cost grows
 * with the number of alternatives: for the 19 of `pgoutput::message` it was an eighth of a whole
 * pipeline's compile.
 *
 * @pre `!v.valueless_by_exception()`.
 */
template <class Variant, class F>
constexpr auto visit_by_index(Variant& v, F&& f) -> decltype(f(*std::get_if<0>(&v))) {
  return detail::visit_from<0>(v, f);
}

}  // namespace replicant::detail

#endif  // REPLICANT_CORE_DETAIL_VISIT_BY_INDEX_HPP
