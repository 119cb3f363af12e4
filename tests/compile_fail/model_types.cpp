// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Mapping a row onto a struct (docs/casting.md, "Mapping rows onto structs") and reading a value as a
// type: what can never fit is refused at compile time, with the library's sentence, rather than
// failing on every row at run time. A member whose type no column fills is named in the first
// error (the `// context` lines): in the failed requirement (Clang) or in the instantiation printed
// just before it (GCC), also when the type is wrapped in std::optional.
// expect as_not_a_struct: replicant: as<T>\(\) needs T adapted with BOOST_HANA_DEFINE_STRUCT or BOOST_HANA_ADAPT_STRUCT
// expect as_not_default_constructible: replicant: as<T>\(\) needs a default-constructible T
// expect as_member_type: replicant: as<T>\(\): a member type must be bool, an integer or floating-point type, std::string, std::string_view, std::chrono::sys_time<std::chrono::microseconds>, a replicant::value alternative \(numeric, text, date, timestamptz, \.\.\.\), replicant::value, or std::optional / std::vector of those
// context as_member_type: member_name<boost::hana::string<'c', 'u', 's', 't', 'o', 'm', 'e', 'r'>, 9>
// expect as_optional_member_type: replicant: as<T>\(\): a member type must be bool, an integer or floating-point type, std::string, std::string_view, std::chrono::sys_time<std::chrono::microseconds>, a replicant::value alternative \(numeric, text, date, timestamptz, \.\.\.\), replicant::value, or std::optional / std::vector of those
// context as_optional_member_type: member_name<boost::hana::string<'t', 'o', 't', 'a', 'l'>, 6>
// expect value_get_int: replicant: value::get/get_if/holds<T>: T must be one of null_t, bool, std::int64_t, double, numeric, text, bytea, date, time_of_day, timestamp, timestamptz, uuid, json or array \(every integer type arrives as std::int64_t, float4 as double\)
#include <replicant/model/mapping.hpp>

#include <boost/hana/define_struct.hpp>

#include <cstdint>
#include <optional>
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
#elif defined(REPLICANT_COMPILE_FAIL_as_optional_member_type)
struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::string, customer),
                           (std::optional<std::pair<std::int64_t, std::int64_t> >, total));
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
