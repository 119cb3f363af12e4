// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_ERROR_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_ERROR_HPP

/// @file
/// The ways the mirror itself refuses a change (as opposed to the target refusing a statement):
/// `mirror_errc`, an error category of its own, so a halt's cause names them.

#include <string>
#include <system_error>

namespace replicant::examples::pg_mirror {

/// Why the mirror could not apply a change. Each has a fixed message; none carries a value or name.
enum class mirror_errc {
  /// A published table has no usable key: the mirror needs `REPLICA IDENTITY DEFAULT` with a primary
  /// key, `USING INDEX`, or `FULL`, to find a row in the target. `FULL` without a primary key on the
  /// target is refused where transactions may be applied twice (the library-owned checkpoint
  /// modes), and so is a primary key column the publication leaves out.
  no_usable_key = 1,
  /// A row lacks the value of a key column (not sent, or NULL), so the row cannot be addressed.
  key_value_missing,
  /// A value came in binary form; the mirror passes values on in their text form only.
  binary_value,
  /// An update left TOASTed columns unchanged but the target has no such row, so their values are
  /// unknown: the target has diverged from the source.
  row_missing,
  /// `COMMIT` on the target did not commit (the transaction had been rolled back).
  not_committed,
  /// The test-only option `--test-confirmations fail:N` reported the transaction failed, on
  /// purpose (its rows were committed all the same).
  failure_injected,
  /// An old row of a `REPLICA IDENTITY FULL` table without a primary key lacks a column's value (not
  /// sent), so the row it names cannot be told from others.
  old_value_missing,
  /// An update or delete of a table without a key found no row equal to its old row in the target:
  /// the target has diverged from the source.
  no_matching_row,
};

namespace detail {

class mirror_category_impl final : public std::error_category {
 public:
  [[nodiscard]] auto name() const noexcept -> const char* override { return "replicant.pg_mirror"; }
  [[nodiscard]] auto message(int code) const -> std::string override {
    switch (static_cast<mirror_errc>(code)) {
      case mirror_errc::no_usable_key:
        return "a published table has no usable key (needs REPLICA IDENTITY DEFAULT with a primary key, USING "
               "INDEX, or FULL; FULL without a primary key only in the modes that apply each transaction once)";
      case mirror_errc::key_value_missing: return "a row lacks the value of a key column";
      case mirror_errc::binary_value: return "a value arrived in binary form; only text form is supported";
      case mirror_errc::row_missing:
        return "an update left TOASTed columns unchanged, but the target has no such row (the target diverged)";
      case mirror_errc::not_committed: return "the target rolled the transaction back at COMMIT";
      case mirror_errc::failure_injected: return "a failure reported on purpose by a test option";
      case mirror_errc::old_value_missing:
        return "an old row of a table without a key lacks a column's value, so it cannot be matched";
      case mirror_errc::no_matching_row:
        return "an update or delete of a table without a key found no equal row in the target (the target "
               "diverged)";
    }
    return "unknown pg_mirror error";
  }
};

}  // namespace detail

/// The category of @ref mirror_errc, named `"replicant.pg_mirror"`. Never throws.
[[nodiscard]] inline auto mirror_category() noexcept -> const std::error_category& {
  static const detail::mirror_category_impl instance;
  return instance;
}

/// Makes @p e a `std::error_code` (found by argument-dependent lookup). Never throws.
[[nodiscard]] inline auto make_error_code(mirror_errc e) noexcept -> std::error_code {
  return {static_cast<int>(e), mirror_category()};
}

}  // namespace replicant::examples::pg_mirror

template <>
struct std::is_error_code_enum<replicant::examples::pg_mirror::mirror_errc> : std::true_type {};

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_ERROR_HPP
