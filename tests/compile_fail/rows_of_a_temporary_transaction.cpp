// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A typed view reads its transaction when it is iterated, after the full expression that made it:
// made from a temporary transaction it would read a dead one, so rows<T>() takes a transaction
// (or a contiguous range of changes) as an lvalue only. A view of changes is copied, and may be a
// temporary. The first error is the call that finds no overload (its note names the constraint,
// change_source, which the control compile, the same call on an lvalue, meets).
// expect: no matching function for call to .*rows<compile_fail::order>\(std::remove_reference<replicant::transaction&>::type
#include <replicant/model/rows.hpp>

#include <boost/hana/define_struct.hpp>

#include <cstdint>
#include <utility>

namespace compile_fail {

struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id));
};

inline auto count(replicant::transaction& txn) -> long {
  constexpr replicant::table_ref orders{"public", "orders"};
  long n = std::ranges::distance(replicant::rows<order>(txn.changes(), orders));  // a view: fine
#ifdef REPLICANT_COMPILE_FAIL
  n += std::ranges::distance(replicant::rows<order>(std::move(txn), orders));
#endif
  return n;
}

}  // namespace compile_fail
