// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_CHECKS_CATALOG_AUDIT_HPP
#define REPLICANT_TESTS_SUPPORT_CHECKS_CATALOG_AUDIT_HPP

/// @file
/// The telemetry catalog audit of the live tests: every event an event_log records is compared
/// with its entry in the catalog (`replicant::telemetry::catalog`, which docs/telemetry.md is
/// checked against by replicant.unit.docs.reference). An event whose name is not catalogued, or
/// that carries a key its entry does not list (or lists as the other kind, measurement or
/// metadata), is a finding of the suite-wide audit (value_free_audit.hpp), which fails the test
/// program when it ends. emit() makes such an event hard to write; this sees what is emitted.

#include "support/checks/value_free_audit.hpp"

#include <replicant/telemetry/telemetry.hpp>

#include <boost/hana/for_each.hpp>

#include <set>
#include <span>
#include <string>
#include <string_view>

namespace replicant::test::audit {

namespace detail {

// The keys of a Hana tuple of key tags.
template <class Keys>
auto key_names(Keys keys) -> std::set<std::string_view> {
  std::set<std::string_view> out;
  boost::hana::for_each(keys, [&](auto k) { out.insert(decltype(k)::type::name); });
  return out;
}

inline auto within(std::span<const telemetry::field> fields, const std::set<std::string_view>& allowed) -> bool {
  for (const telemetry::field& f : fields) {
    if (allowed.count(f.key) == 0) return false;
  }
  return true;
}

}  // namespace detail

/// Whether @p e is an event of the catalog carrying only keys its entry lists, each in its list.
[[nodiscard]] inline auto fits_catalog(const telemetry::event_record& e) -> bool {
  bool found = false;
  bool fits = false;
  boost::hana::for_each(telemetry::catalog, [&](auto t) {
    using event = typename decltype(t)::type;
    if (found || event::name != e.name) return;
    found = true;
    fits = detail::within(e.measurements, detail::key_names(event::measurements)) &&
           detail::within(e.metadata, detail::key_names(event::metadata));
  });
  return found && fits;
}

/// Records a finding when @p e does not fit its catalog entry. Thread-safe.
inline auto check_catalog(const telemetry::event_record& e) -> void {
  // The name is one of the library's fixed strings, never a value.
  if (!fits_catalog(e)) finding("a telemetry event outside its catalog entry: " + std::string{e.name});
}

}  // namespace replicant::test::audit

#endif  // REPLICANT_TESTS_SUPPORT_CHECKS_CATALOG_AUDIT_HPP
