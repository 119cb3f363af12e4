// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/core/halt.hpp>

#define BOOST_TEST_MODULE replicant.unit.halt
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <type_traits>

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

BOOST_AUTO_TEST_CASE(names_and_error_codes_round_trip) {
  for (const halt_reason r : replicant::halt_reasons) {
    BOOST_TEST((replicant::parse_halt_reason(replicant::to_string(r)) == r));
    const std::error_code ec = r;  // implicit: halt_reason is an error-code enum
    BOOST_TEST(ec == r);
    BOOST_TEST(static_cast<halt_reason>(ec.value()) == r);
    BOOST_TEST(static_cast<bool>(ec));  // no reason is "success"
  }
  BOOST_TEST(!replicant::parse_halt_reason("").has_value());
  BOOST_TEST(!replicant::parse_halt_reason("Sink_Failed").has_value());
  BOOST_TEST(!replicant::parse_halt_reason("sink_failed ").has_value());
  static_assert(replicant::parse_halt_reason("table_keyless") == halt_reason::table_keyless);
}

BOOST_AUTO_TEST_CASE(has_its_own_category_with_fixed_distinct_messages) {
  BOOST_TEST(std::string_view(replicant::halt_category().name()) == "replicant.halt");
  BOOST_TEST(&replicant::make_error_code(halt_reason::sink_failed).category() == &replicant::halt_category());
  // Distinct from errc even where the words match.
  BOOST_TEST(std::error_code(halt_reason::sink_failed) != std::error_code(replicant::errc::sink_failed));
  std::set<std::string> messages;
  for (const halt_reason r : replicant::halt_reasons) {
    const std::string m = replicant::make_error_code(r).message();
    BOOST_TEST_CONTEXT(replicant::to_string(r)) {
      BOOST_TEST(!m.empty());
      BOOST_TEST(m != "unknown halt reason");
      BOOST_TEST(m.find('\n') == std::string::npos);
      BOOST_TEST(messages.insert(m).second, m << " is used twice");
      BOOST_TEST(!replicant::operator_action(r).empty());
    }
  }
  BOOST_TEST(replicant::halt_category().message(0) == "unknown halt reason");
  BOOST_TEST(replicant::halt_category().message(9999) == "unknown halt reason");
}

BOOST_AUTO_TEST_CASE(start_rejections_are_exactly_the_option_checks) {
  const std::set<halt_reason> rejections{halt_reason::invalid_identifier,
                                         halt_reason::invalid_sink,
                                         halt_reason::config_invalid,
                                         halt_reason::go_forward_required,
                                         halt_reason::snapshot_unsupported,
                                         halt_reason::batch_unsupported,
                                         halt_reason::messages_unsupported,
                                         halt_reason::decoder_capability_unsupported,
                                         halt_reason::invalid_start_lsn};
  for (const halt_reason r : replicant::halt_reasons) {
    BOOST_TEST(replicant::is_start_rejection(r) == (rejections.count(r) == 1), replicant::to_string(r));
  }
  // Detected at connect, when the server version is known: a halt, not a start-time rejection.
  BOOST_TEST(!replicant::is_start_rejection(halt_reason::failover_unsupported));
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
               .cause = replicant::errc::connection_failed};
  const std::string d = replicant::describe(h);
  for (std::string_view part : {"sink_too_slow", "table public.orders", "at 16/B374D848", "lag 67108865 bytes",
                                "after 3 attempts", "sqlstate 55000", "cause replicant:5 (", "action: "}) {
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
    BOOST_TEST(e.code() == halt_reason::slot_invalidated);
    BOOST_TEST(std::string_view(e.code().category().name()) == "replicant.halt");
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
