// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_IDENTIFIER_HPP
#define REPLICANT_CORE_IDENTIFIER_HPP

/// @file
/// Names that reach SQL or replication commands: shape validation (`replicant::identifier`), quoting
/// (`quote_identifier`, `quote_literal`), the validated `slot_name` type, and the `table_name` /
/// `table_ref` pair used in halts and telemetry.
///
/// Two layers keep a name from ever changing the meaning of a command:
/// 1. **Validation** is an allowlist on the *shape* of names the user configures (slot, publication,
///    schema, table, checkpoint table). A failure is an @ref replicant::identifier_error that says
///    what is wrong with the shape and never repeats the text.
/// 2. **Quoting** is applied to every name put into a command, validated or not, so the name used is
///    exactly the name given (PostgreSQL folds unquoted names to lower case) and a reserved word
///    such as `user` still works as a publication name.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/result.hpp>
#include <replicant/core/utf8.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace replicant {

/**
 * What is wrong with the shape of a name or of a text to be quoted.
 *
 * Each code names a shape fact only: the offending text is never part of an error, a log line or a
 * telemetry event, because a misconfigured name may well be a pasted secret.
 */
enum class identifier_error {
  /// The name is empty.
  empty = 1,
  /// The name is longer than 63 bytes. PostgreSQL would silently truncate it to `NAMEDATALEN - 1`
  /// bytes, so two distinct names could end up naming the same object.
  too_long,
  /// The first character is not allowed there (an identifier must start with a letter or `_`).
  bad_first_character,
  /// A character outside the allowed set (for a slot name: anything but `a-z`, `0-9`, `_`).
  bad_character,
  /// The text contains a NUL byte. libpq passes commands as C strings, so everything after the NUL
  /// would be cut off, silently changing the command.
  contains_nul,
  /// A literal contains a backslash. In SQL its meaning depends on `standard_conforming_strings`,
  /// while the replication grammar has no escapes at all; rather than guess which parser reads the
  /// text, replicant refuses it.
  contains_backslash,
  /// The text is not well-formed UTF-8 (the replication connection always uses UTF-8).
  invalid_utf8,
};

}  // namespace replicant

// Declared before any use, so that `fail(identifier_error::...)` sees it.
template <>
struct std::is_error_code_enum<replicant::identifier_error> : std::true_type {};

namespace replicant {

namespace detail {

class identifier_category_impl final : public std::error_category {
 public:
  [[nodiscard]] auto name() const noexcept -> const char* override { return "replicant.identifier"; }

  [[nodiscard]] auto message(int code) const -> std::string override;
};

}  // namespace detail

/// The category of @ref replicant::identifier_error; its `name()` is `"replicant.identifier"`.
/// @par Thread safety Safe.
[[nodiscard]] REPLICANT_DECL auto identifier_category() noexcept -> const std::error_category&;

/// Makes a `std::error_code` from an @ref replicant::identifier_error (found by ADL).
[[nodiscard]] inline auto make_error_code(identifier_error e) noexcept -> std::error_code {
  return {static_cast<int>(e), identifier_category()};
}

namespace detail {

constexpr auto is_ascii_lower(char c) noexcept -> bool { return c >= 'a' && c <= 'z'; }
constexpr auto is_ascii_upper(char c) noexcept -> bool { return c >= 'A' && c <= 'Z'; }
constexpr auto is_ascii_digit(char c) noexcept -> bool { return c >= '0' && c <= '9'; }

// Checks the text shared by both quoting helpers: no NUL, well-formed UTF-8. 0 means fine.
constexpr auto check_quotable(std::string_view text) noexcept -> int {
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\0') return static_cast<int>(identifier_error::contains_nul);
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) return static_cast<int>(identifier_error::invalid_utf8);
    i += n;
  }
  return 0;
}

// The shape checks return the identifier_error value, or 0 when the name is acceptable. They are
// constexpr so that names can be checked at compile time too.
constexpr auto check_slot_name(std::string_view text) noexcept -> int {
  if (text.empty()) return static_cast<int>(identifier_error::empty);
  if (text.size() > 63) return static_cast<int>(identifier_error::too_long);
  for (char c : text) {
    if (c == '\0') return static_cast<int>(identifier_error::contains_nul);
    if (!is_ascii_lower(c) && !is_ascii_digit(c) && c != '_') return static_cast<int>(identifier_error::bad_character);
  }
  return 0;
}

constexpr auto check_plain_identifier(std::string_view text) noexcept -> int {
  if (text.empty()) return static_cast<int>(identifier_error::empty);
  if (text.size() > 63) return static_cast<int>(identifier_error::too_long);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0') return static_cast<int>(identifier_error::contains_nul);
    const bool letter = is_ascii_lower(c) || is_ascii_upper(c) || c == '_';
    if (i == 0 && !letter) return static_cast<int>(identifier_error::bad_first_character);
    if (!letter && !is_ascii_digit(c) && c != '$') return static_cast<int>(identifier_error::bad_character);
  }
  return 0;
}

REPLICANT_DECL auto to_result(int code) noexcept -> result<void>;

}  // namespace detail

/**
 * Shape validation for names that the user configures and that reach SQL or replication commands.
 *
 * Two kinds of name, two functions:
 *
 * | function | for | allowed shape |
 * |---|---|---|
 * | @ref validate_slot_name | replication slots | `[a-z0-9_]{1,63}` — what PostgreSQL itself accepts for a slot (`ReplicationSlotValidateName`) |
 * | @ref validate | publications, schemas, tables, the checkpoint store's tables, ... | `[A-Za-z_][A-Za-z0-9_$]*`, 1 to 63 bytes — an unquoted SQL identifier, ASCII only |
 *
 * The allowlist is deliberately narrower than what PostgreSQL can store (a quoted identifier may
 * contain anything but NUL): configuration names are chosen by people and a narrow shape catches
 * pasted garbage early. Names that come *from the server* (table names in the relation cache) are
 * not validated, only quoted. Validation does not fold case: `MyPub` passes and is then used
 * quoted, exactly as given.
 *
 * When several rules are broken the first one in this order is reported: empty, too long, then the
 * first offending byte (NUL, a bad first character, a bad character).
 *
 * @par Exceptions
 * Never throws.
 * @par Thread safety
 * Pure functions: safe.
 */
namespace identifier {

/// The longest name PostgreSQL keeps without truncating it: `NAMEDATALEN - 1` bytes.
inline constexpr std::size_t max_length = 63;

/**
 * Checks that @p name is a plain SQL identifier: `[A-Za-z_][A-Za-z0-9_$]*`, 1 to 63 bytes.
 *
 * For publications, schemas, tables and other objects named in SQL.
 * @return nothing, or an @ref replicant::identifier_error naming the shape problem (never the text).
 * @par Example
 * @code
 * if (auto ok = replicant::identifier::validate(options.publication); !ok) return ok.error();
 * @endcode
 */
[[nodiscard]] inline auto validate(std::string_view name) noexcept -> result<void> {
  return detail::to_result(detail::check_plain_identifier(name));
}

/**
 * Checks that @p name is a valid replication slot name: `[a-z0-9_]{1,63}`.
 *
 * This is exactly PostgreSQL's own rule, checked before connecting so that a bad name is a
 * start-time rejection rather than a server error on every reconnect.
 * @return nothing, or an @ref replicant::identifier_error naming the shape problem (never the text).
 */
[[nodiscard]] inline auto validate_slot_name(std::string_view name) noexcept -> result<void> {
  return detail::to_result(detail::check_slot_name(name));
}

}  // namespace identifier

/**
 * Quotes @p name as a delimited identifier: `"..."`, with each double quote inside doubled.
 *
 * The result is valid both in SQL and in the replication grammar, which use the same rule (see
 * PROTOCOL.md §1.2). Quoting keeps the name's case and makes any byte sequence a single name, so it
 * is applied to every name put into a command, including validated ones and names that came from
 * the server.
 *
 * @return the quoted name, or `empty` (`""` is a syntax error), `too_long` (more than 63 bytes, which
 * PostgreSQL would truncate), `contains_nul` or `invalid_utf8`. The error never repeats the text.
 * @par Example
 * @code
 * replicant::quote_identifier("my \"pub\"").value() == R"("my ""pub""")"
 * @endcode
 * @par Exceptions
 * Throws `std::bad_alloc` only.
 */
[[nodiscard]] REPLICANT_DECL auto quote_identifier(std::string_view name) -> result<std::string>;

/**
 * Quotes @p text as a string literal: `'...'`, with each `'` doubled, and never the `E'...'` form.
 *
 * The replication grammar knows only this form (`START_REPLICATION` option values, see
 * PROTOCOL.md §1.2), which is why `PQescapeLiteral` cannot be used for it: that function switches to
 * `E'...'` when the text holds a backslash. A backslash is therefore **refused** rather than escaped:
 * in the replication grammar it would be an ordinary character, but in SQL it would be an escape
 * character if the server ran with `standard_conforming_strings = off`, and the same quoted text
 * must mean the same thing to both. A NUL byte is refused too (libpq would cut the command there).
 * The empty text is allowed and gives `''`.
 *
 * @return the quoted text, or `contains_nul`, `contains_backslash` or `invalid_utf8`. The error
 * never repeats the text.
 * @par Example
 * @code
 * replicant::quote_literal("it's").value() == "'it''s'"
 * @endcode
 * @par Exceptions
 * Throws `std::bad_alloc` only.
 */
[[nodiscard]] REPLICANT_DECL auto quote_literal(std::string_view text) -> result<std::string>;

/**
 * A replication slot name known to be valid (`[a-z0-9_]{1,63}`).
 *
 * The only way to get one is @ref make, which validates. Stored inline (no allocation) and
 * trivially copyable, so it can travel in telemetry events and halts for free. A slot name is
 * configuration, not row data: it may appear in logs and telemetry (key `slot_name`).
 *
 * @par Example
 * @code
 * auto slot = replicant::slot_name::make("orders_cdc");
 * if (!slot) return slot.error();   // identifier_error, value-free
 * std::string_view text = slot->view();
 * @endcode
 *
 * @par Thread safety
 * A value type: distinct objects are safe, shared objects are safe to read.
 */
class slot_name {
 public:
  /**
   * Validates @p text with @ref identifier::validate_slot_name and keeps a copy.
   * @return the slot name, or the shape problem. Never throws.
   */
  [[nodiscard]] static auto make(std::string_view text) noexcept -> result<slot_name>;

  /// The name, valid as long as this object.
  [[nodiscard]] constexpr auto view() const noexcept -> std::string_view { return {chars_.data(), size_}; }

  /// The name as an owned string.
  [[nodiscard]] auto str() const -> std::string { return std::string(view()); }

  /// Equal when the names are equal.
  friend constexpr auto operator==(const slot_name& a, const slot_name& b) noexcept -> bool {
    return a.view() == b.view();
  }

  /// Writes the name (it is `[a-z0-9_]` only, so it needs no escaping).
  friend auto operator<<(std::ostream& os, const slot_name& s) -> std::ostream& { return os << s.view(); }

 private:
  explicit slot_name(std::string_view text) noexcept : size_(static_cast<std::uint8_t>(text.size())) {
    for (std::size_t i = 0; i < text.size(); ++i) chars_[i] = text[i];
  }

  std::array<char, identifier::max_length> chars_{};
  std::uint8_t size_ = 0;
};

static_assert(std::is_trivially_copyable_v<slot_name>);

/**
 * A non-owning, schema-qualified table name: what the server calls a relation, for display in
 * telemetry (key `table`) and logs.
 *
 * Table names are identifiers, not row values, so they may be reported. The constructor is
 * explicit and takes two parts, so an arbitrary string cannot become a `table_ref` by accident;
 * an owning @ref table_name converts implicitly. The parts are as the server reports them
 * (unvalidated: PostgreSQL allows almost any text in a quoted name), which is why
 * @ref to_string(table_ref) escapes them for display.
 *
 * @par Thread safety
 * A view: valid only while the viewed strings are.
 */
struct table_ref {
  /// Views the two parts of a qualified name, e.g. `table_ref{"public", "orders"}`.
  constexpr explicit table_ref(std::string_view schema_part, std::string_view name_part) noexcept
      : schema(schema_part), name(name_part) {}

  std::string_view schema;  ///< The schema (namespace), e.g. `public`.
  std::string_view name;    ///< The table within it.

  /// Equal when both parts are equal.
  friend constexpr auto operator==(table_ref, table_ref) noexcept -> bool = default;
};

/**
 * An owning, schema-qualified table name, as kept by a @ref replicant::halt.
 *
 * @par Thread safety
 * A value type: distinct objects are safe, shared objects are safe to read.
 */
struct table_name {
  std::string schema;  ///< The schema (namespace), e.g. `public`.
  std::string name;    ///< The table within it.

  /// A view of this name, valid while this object is unchanged.
  // NOLINTNEXTLINE(google-explicit-constructor): a table_name is usable wherever a table_ref is.
  operator table_ref() const noexcept { return table_ref{schema, name}; }

  /// Equal when both parts are equal.
  friend auto operator==(const table_name&, const table_name&) -> bool = default;
};

namespace detail {

// Appends one part of a qualified name for humans: bare when it is a lower-case plain identifier
// (as PostgreSQL prints it), otherwise in double quotes with `"` doubled. Control bytes, DEL, `\`
// and bytes that are not well-formed UTF-8 become `\xNN`, so a table name can never break a log
// line or fake another entry, and distinct names always display differently.
REPLICANT_DECL auto append_display_identifier(std::string& out, std::string_view part) -> void;

}  // namespace detail

/**
 * The display form of a qualified table name, for logs: `public.orders`, `"Sales"."Q1 2026"`.
 *
 * A part is printed bare when it is a lower-case plain identifier and double-quoted otherwise.
 * Control bytes, DEL, backslash and malformed UTF-8 are shown as `\xNN`, so a hostile table name
 * cannot inject a line into a log. This is for people; use @ref quote_identifier for SQL.
 */
[[nodiscard]] REPLICANT_DECL auto to_string(table_ref table) -> std::string;

/// Writes `to_string(table)`.
inline auto operator<<(std::ostream& os, table_ref table) -> std::ostream& { return os << to_string(table); }

namespace detail {

// A string literal for ordinary SQL (not the replication grammar) that holds any text, keys and
// tokens included: the escape-string form, which means the same whatever
// `standard_conforming_strings` says.
[[nodiscard]] REPLICANT_DECL auto escape_string_literal(std::string_view text) -> std::string;

}  // namespace detail

}  // namespace replicant

// The category's messages, the quoting and the display form: in every unit header-only, in the
// one unit that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/core/impl/identifier.hpp>
#endif

#endif  // REPLICANT_CORE_IDENTIFIER_HPP
