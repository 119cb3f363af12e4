// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/core/halt.hpp>

#include <replicant/core/result.hpp>

#include <boost/test/unit_test.hpp>

#include <concepts>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(core_halt_tests)

using replicant::halt;
using replicant::halt_reason;
using namespace replicant::literals;

namespace {

auto is_snake_case(std::string_view s) -> bool {
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

#if defined(__GNUC__) || defined(__clang__)
// How the compiler spells the enumerator whose value is V (`sink_failed`), or "" when no
// enumerator has that value. GCC and Clang name an enumerator template argument in
// __PRETTY_FUNCTION__ (`V = replicant::halt_reason::sink_failed`) and print any other value as a
// cast (`V = (replicant::halt_reason)55`).
template <halt_reason V>
constexpr auto spelling() -> std::string_view {
  const std::string_view function = __PRETTY_FUNCTION__;
  const std::string_view scope = "halt_reason::";
  const auto at = function.rfind(scope);
  if (at == std::string_view::npos) return {};
  const auto rest = function.substr(at + scope.size());
  return rest.substr(0, rest.find_first_of(";]"));
}

// The spellings of the values 1 to N + 1, N being the number of rows in the halt table.
template <std::size_t... I>
auto spellings(std::index_sequence<I...> /*values*/) -> std::vector<std::string_view> {
  return {spelling<static_cast<halt_reason>(I + 1)>()...};
}
#endif

}  // namespace

BOOST_AUTO_TEST_SUITE(halt_reason_enum)

BOOST_AUTO_TEST_CASE(every_reason_has_a_distinct_stable_name) {
  std::set<std::string_view> names;
  for (const halt_reason r : replicant::halt_reasons) {
    const auto name = replicant::to_string(r);
    BOOST_TEST_CONTEXT("reason #" << static_cast<int>(r)) {
      BOOST_TEST(is_snake_case(name), name);
      BOOST_TEST(name != "unknown");
      BOOST_TEST(names.insert(name).second, name << " is used twice");
    }
  }
  BOOST_TEST(names.size() == replicant::halt_reasons.size());
  // A sample of names other tools alert on: they must never change.
  BOOST_TEST(replicant::to_string(halt_reason::sink_too_slow) == "sink_too_slow");
  BOOST_TEST(replicant::to_string(halt_reason::slot_invalidated) == "slot_invalidated");
  BOOST_TEST(replicant::to_string(halt_reason::command_error_limit) == "command_error_limit");
  BOOST_TEST(replicant::to_string(halt_reason::invalid_start_lsn) == "invalid_start_lsn");
}

#if defined(__GNUC__) || defined(__clang__)
// The names are strings in the halt table, beside the enum rather than derived from it, so the
// compiler is asked for its own spelling of each enumerator: a row whose name is not its
// enumerator's, or an enumerator appended without a row of its own, fails here.
BOOST_AUTO_TEST_CASE(every_name_is_its_enumerators_spelling_and_every_enumerator_has_a_row) {
  constexpr std::size_t rows = replicant::halt_reasons.size();
  const auto spelled = spellings(std::make_index_sequence<rows + 1>{});
  for (std::size_t i = 0; i < rows; ++i) {
    BOOST_TEST(replicant::to_string(replicant::halt_reasons[i]) == spelled[i], "reason #" << i + 1);
  }
  BOOST_TEST(spelled[rows].empty(), spelled[rows] << " has no row in the halt table");
}
#endif

BOOST_AUTO_TEST_CASE(covers_every_halt_and_rejection_of_the_reference) {
  // The behavioural reference's halts, start-time rejections and the halts of the design, by name.
  for (std::string_view name : {"sink_failed",
                                "sink_too_slow",
                                "slot_invalidated",
                                "publication_missing",
                                "slot_missing",
                                "command_error_limit",
                                "session_identity_rejected",
                                "slot_origin_rejected",
                                "slot_origin_unavailable",
                                "checkpoint_store_failed",
                                "schema_change_destructive",
                                "snapshot_incomplete",
                                "snapshot_failed",
                                "snapshot_table_contended",
                                "spill_exhausted",
                                "spill_io_failed",
                                "transaction_too_large",
                                "decode_failure",
                                "decoder_protocol_unsupported",
                                "decoder_lsn_missing",
                                "decoder_option_unsupported",
                                "decoder_unsupported_on_server",
                                "decoder_table_missing",
                                "table_keyless",
                                "slot_synced_unpromoted",
                                "failover_unsupported",
                                "standby_unsupported",
                                "standby_feedback_off",
                                "slot_not_failover",
                                "failover_slot_missing",
                                "origin_unsupported",
                                "two_phase_failover_conflict",
                                "invalid_identifier",
                                "invalid_sink",
                                "config_invalid",
                                "go_forward_required",
                                "snapshot_unsupported",
                                "batch_unsupported",
                                "messages_unsupported",
                                "decoder_capability_unsupported",
                                "invalid_start_lsn"}) {
    BOOST_TEST(replicant::parse_halt_reason(name).has_value(), name);
  }
}

BOOST_AUTO_TEST_CASE(names_round_trip) {
  for (const halt_reason r : replicant::halt_reasons) {
    BOOST_TEST((replicant::parse_halt_reason(replicant::to_string(r)) == r));
  }
  BOOST_TEST(!replicant::parse_halt_reason("").has_value());
  BOOST_TEST(!replicant::parse_halt_reason("Sink_Failed").has_value());
  BOOST_TEST(!replicant::parse_halt_reason("sink_failed ").has_value());
  static_assert(replicant::parse_halt_reason("table_keyless") == halt_reason::table_keyless);
}

// One error model: an operation's std::error_code is an errc, and a halt reason lives in a halt
// only. A reason that shares its name with an errc (decode_failure, sink_failed, ...) therefore
// cannot be mistaken for it: the comparison does not compile (compile_fail/
// halt_reason_is_not_an_error_code.cpp shows the diagnostic), where it used to be silently false.
BOOST_AUTO_TEST_CASE(is_not_an_error_code) {
  static_assert(!std::is_error_code_enum_v<halt_reason>);
  static_assert(!std::is_error_condition_enum_v<halt_reason>);
  static_assert(!std::is_convertible_v<halt_reason, std::error_code>);
  static_assert(!std::is_constructible_v<std::error_code, halt_reason>);
  static_assert(!std::equality_comparable_with<std::error_code, halt_reason>);
  static_assert(!std::equality_comparable_with<std::error_condition, halt_reason>);
  // The operation's code of each shared name is an errc, and compares as one.
  const std::error_code decode = replicant::errc::decode_failure;
  BOOST_TEST(decode == replicant::errc::decode_failure);
  BOOST_TEST(decode != replicant::errc::halted);
}

BOOST_AUTO_TEST_CASE(every_reason_has_a_fixed_distinct_message) {
  std::set<std::string> messages;
  for (const halt_reason r : replicant::halt_reasons) {
    const std::string m{replicant::message(r)};
    BOOST_TEST_CONTEXT(replicant::to_string(r)) {
      BOOST_TEST(!m.empty());
      BOOST_TEST(m != "unknown halt reason");
      BOOST_TEST(m.find('\n') == std::string::npos);
      BOOST_TEST(messages.insert(m).second, m << " is used twice");
      BOOST_TEST(!replicant::operator_action(r).empty());
    }
  }
  BOOST_TEST(replicant::message(halt_reason{}) == "unknown halt reason");
  BOOST_TEST(replicant::message(static_cast<halt_reason>(9999)) == "unknown halt reason");
}

BOOST_AUTO_TEST_CASE(a_value_that_names_no_reason_reads_as_unknown) {
  for (const halt_reason r :
       {halt_reason{}, static_cast<halt_reason>(-1), static_cast<halt_reason>(replicant::halt_reasons.size() + 1),
        static_cast<halt_reason>(9999)}) {
    BOOST_TEST_CONTEXT("value " << static_cast<int>(r)) {
      BOOST_TEST(replicant::to_string(r) == "unknown");
      BOOST_TEST(replicant::message(r) == "unknown halt reason");
      BOOST_TEST(replicant::operator_action(r) == "consult docs/errors.md");
      BOOST_TEST(!replicant::is_start_rejection(r));
      BOOST_TEST(!replicant::detail::is_slot_refusal(r));
      BOOST_TEST(!replicant::parse_halt_reason(replicant::to_string(r)).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(halt_or_carries_a_refusal_with_its_exact_reason) {
  const auto refuser = []() -> replicant::halt_or<int> { return replicant::refuse(halt_reason::config_invalid); };
  const auto refused = refuser();
  BOOST_TEST(!refused);
  BOOST_TEST(refused.error().reason == halt_reason::config_invalid);
  BOOST_TEST(!refused.error().cause);
  const replicant::halt_or<void> with_cause =
      replicant::refuse(halt_reason::config_invalid, replicant::errc::invalid_identifier);
  BOOST_TEST(with_cause.error().reason == halt_reason::config_invalid);
  BOOST_TEST(with_cause.error().cause == replicant::errc::invalid_identifier);
  const replicant::halt_or<int> fine = 7;
  BOOST_TEST(fine.value() == 7);
  // A halt is not a std::error_code, so a halt_or cannot be returned where a result is expected.
  static_assert(!std::is_convertible_v<replicant::halt_or<void>, replicant::result<void>>);
  static_assert(!std::is_constructible_v<std::error_code, halt>);
}

BOOST_AUTO_TEST_CASE(start_rejections_are_exactly_the_option_checks) {
  const std::set<halt_reason> rejections{halt_reason::invalid_identifier,   halt_reason::invalid_sink,
                                         halt_reason::config_invalid,       halt_reason::go_forward_required,
                                         halt_reason::snapshot_unsupported, halt_reason::batch_unsupported,
                                         halt_reason::messages_unsupported, halt_reason::decoder_capability_unsupported,
                                         halt_reason::invalid_start_lsn};
  for (const halt_reason r : replicant::halt_reasons) {
    BOOST_TEST(replicant::is_start_rejection(r) == (rejections.count(r) == 1), replicant::to_string(r));
  }
  // Detected at connect, when the server version is known: a halt, not a start-time rejection.
  BOOST_TEST(!replicant::is_start_rejection(halt_reason::failover_unsupported));
}

// The halts the engine reports as replicant.connection.slot_invalidated too (docs/telemetry.md):
// the slot, its publications or the server's setup refuse the stream.
BOOST_AUTO_TEST_CASE(slot_refusals_are_the_halts_reported_as_slot_invalidated) {
  const std::set<halt_reason> refusals{halt_reason::slot_invalidated,      halt_reason::publication_missing,
                                       halt_reason::publication_changed,   halt_reason::slot_missing,
                                       halt_reason::slot_dropped,          halt_reason::slot_synced_unpromoted,
                                       halt_reason::slot_not_failover,     halt_reason::failover_slot_missing,
                                       halt_reason::failover_unsupported,  halt_reason::two_phase_failover_conflict,
                                       halt_reason::standby_unsupported,   halt_reason::standby_feedback_off,
                                       halt_reason::origin_unsupported,    halt_reason::decoder_option_unsupported,
                                       halt_reason::decoder_table_missing, halt_reason::checkpoint_ahead_of_server};
  for (const halt_reason r : replicant::halt_reasons) {
    BOOST_TEST(replicant::detail::is_slot_refusal(r) == (refusals.count(r) == 1), replicant::to_string(r));
    // Found on a server, so never before anything connects.
    BOOST_TEST(!(replicant::detail::is_slot_refusal(r) && replicant::is_start_rejection(r)), replicant::to_string(r));
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(halt_record)

BOOST_AUTO_TEST_CASE(describe_names_the_reason_message_and_action) {
  const std::string d = replicant::describe(halt{.reason = halt_reason::sink_failed});
  BOOST_TEST(d ==
             "replicant halted: sink_failed (the sink reported a failure); action: fix the sink or the store it "
             "writes to, then restart");
  const std::string r = replicant::describe(halt{.reason = halt_reason::config_invalid});
  BOOST_TEST(r.rfind("replicant refused to start: config_invalid (", 0) == 0);
  // A halt whose reason was never set says so rather than naming a wrong reason.
  BOOST_TEST(replicant::describe(halt{}).rfind("replicant halted: unknown (unknown halt reason)", 0) == 0);
}

BOOST_AUTO_TEST_CASE(describe_shows_every_metadata_field) {
  const halt h{.reason = halt_reason::sink_too_slow,
               .table = replicant::table_name{"public", "orders"},
               .at = "16/B374D848"_lsn,
               .sqlstate = "55000",
               .lag_bytes = 67108865,
               .attempts = 3,
               .invalidation = replicant::slot_invalidation::rows_removed,
               .cause = replicant::errc::connection_failed};
  const std::string d = replicant::describe(h);
  for (std::string_view part :
       {"sink_too_slow", "table public.orders", "at 16/B374D848", "lag 67108865 bytes", "after 3 attempts",
        "invalidation rows_removed", "sqlstate 55000", "cause replicant:5 (", "action: "}) {
    BOOST_TEST(d.find(part) != std::string::npos, part << " missing from: " << d);
  }
  BOOST_TEST(
      replicant::describe(halt{.reason = halt_reason::command_error_limit, .attempts = 1}).find("after 1 attempt;") !=
      std::string::npos);
  BOOST_TEST(replicant::describe(halt{.reason = halt_reason::sink_too_slow, .lag_bytes = -12}).find("lag -12 bytes") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(describe_never_prints_control_characters_or_a_bad_sqlstate) {
  const halt h{.reason = halt_reason::schema_change_destructive,
               .table = replicant::table_name{"pub\nlic", "x\r\n[ERROR] forged entry"},
               .sqlstate = "55000\nsecret"};
  const std::string d = replicant::describe(h);
  for (char c : d) BOOST_TEST((static_cast<unsigned char>(c) >= 0x20 && c != 0x7F), d);
  BOOST_TEST(d.find("\"pub\\x0Alic\".\"x\\x0D\\x0A[ERROR] forged entry\"") != std::string::npos, d);
  BOOST_TEST(d.find("secret") == std::string::npos);
  BOOST_TEST(d.find("sqlstate (malformed)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(error_carries_the_halt) {
  const halt h{.reason = halt_reason::slot_invalidated, .at = "0/10"_lsn};
  try {
    throw replicant::error(h);
  } catch (const std::system_error& e) {  // catchable as the standard type
    // The code says that it stopped, the same as run(ec) reports; the halt says why.
    BOOST_TEST(e.code() == replicant::errc::halted);
    BOOST_TEST(&e.code().category() == &replicant::error_category());
    BOOST_TEST(std::string(e.what()) == replicant::describe(h));
    const auto* ours = dynamic_cast<const replicant::error*>(&e);
    BOOST_TEST_REQUIRE(ours != nullptr);
    BOOST_TEST((ours->details() == h));
    BOOST_TEST(ours->reason() == halt_reason::slot_invalidated);
    const replicant::error copy = *ours;  // copying an exception must not throw
    BOOST_TEST(std::string(copy.what()) == std::string(ours->what()));
  }
  static_assert(std::is_nothrow_copy_constructible_v<replicant::error>);
  static_assert(std::is_base_of_v<std::system_error, replicant::error>);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_halt_tests
