// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Mapping a row onto a struct (docs/casting.md, "Mapping rows onto structs") and reading a value as a
// type: what can never fit is refused at compile time, with the library's sentence, rather than
// failing on every row at run time.
// expect as_not_a_struct: replicant: as<T>\(\) needs T adapted with BOOST_HANA_DEFINE_STRUCT or BOOST_HANA_ADAPT_STRUCT
// expect as_not_default_constructible: replicant: as<T>\(\) needs a default-constructible T
// expect as_member_type: replicant: as<T>\(\): a member type must be bool, an integer or floating-point type, std::string, std::string_view, std::chrono::sys_time<std::chrono::microseconds>, a replicant::value alternative \(numeric, text, date, timestamptz, \.\.\.\), replicant::value, or std::optional / std::vector of those
// expect value_get_int: replicant: value::get/get_if/holds<T>: T must be one of null_t, bool, std::int64_t, double, numeric, text, bytea, date, time_of_day, timestamp, timestamptz, uuid, json or array \(every integer type arrives as std::int64_t, float4 as double\)
#include <replicant/model/mapping.hpp>

#include <boost/hana/define_struct.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace compile_fail {

#if defined(REPLICANT_COMPILE_FAIL_as_not_a_struct)
// Not adapted with Boost.Hana: as<T>() cannot see its members.
struct order {
  std::int64_t id;
  std::string customer;
};
#elif defined(REPLICANT_COMPILE_FAIL_as_not_default_constructible)
struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::string, customer));
  explicit order(std::int64_t i) : id{i} {}
};
#elif defined(REPLICANT_COMPILE_FAIL_as_member_type)
// A pair is none of the member types a column fills.
struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::pair<std::int64_t, std::int64_t>, customer));
};
#else
struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::string, customer));
};
#endif

inline auto read(const replicant::row& r) -> replicant::mapping_result<order> { return replicant::as<order>(r); }

// Every integer column arrives as std::int64_t: an int is never one of a value's alternatives.
inline auto is_integer(const replicant::value& v) -> bool {
#ifdef REPLICANT_COMPILE_FAIL_value_get_int
  return v.holds<int>();
#else
  return v.holds<std::int64_t>();
#endif
}

}  // namespace compile_fail
