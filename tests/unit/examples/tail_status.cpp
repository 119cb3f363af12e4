// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// How replicant-tail reports on its replication pipeline: status lines made from telemetry
// (examples/tail/status.hpp), and halts mapped onto its value-free failures, hints and exit
// statuses (examples/tail/failure.hpp).
#include "../../../examples/tail/status.hpp"

#include <boost/test/unit_test.hpp>

#include "../../../examples/tail/failure.hpp"

#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_tail_status_tests)

namespace tail = replicant::examples::tail;
namespace telemetry = replicant::telemetry;
using replicant::halt_reason;
using replicant::lsn;

namespace {

// The slot name the pipeline puts into its events: it came from the command line, so it must
// never be printed.
const auto secret_slot = replicant::slot_name::make("secret_slot_q9").value();

// Emits events through a real dispatcher, as the pipeline does, and keeps the status lines.
struct harness {
  tail::status_reporter status{160004};
  telemetry::dispatcher events;
  std::vector<std::string> lines;
  bool stopping = false;

  harness() {
    events.attach([this](const telemetry::event_record& e) {
      if (auto line = status.line_for(e, stopping)) lines.push_back(*line);
    });
  }
};

auto halted(halt_reason reason) -> replicant::halt {
  replicant::halt h;
  h.reason = reason;
  return h;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(status_reporter)

BOOST_AUTO_TEST_CASE(reports_where_streaming_starts_and_every_reconnect) {
  harness t;
  telemetry::emit<telemetry::events::connection_connected>(t.events);
  telemetry::emit<telemetry::events::connection_slot_active>(t.events, telemetry::keys::slot_name = secret_slot,
                                                             telemetry::keys::commit_lsn = lsn{});
  telemetry::emit<telemetry::events::checkpoint_advanced>(t.events, telemetry::keys::commit_lsn = lsn{0x16B3748});
  telemetry::emit<telemetry::events::connection_disconnected>(t.events);
  telemetry::emit<telemetry::events::connection_slot_active>(t.events, telemetry::keys::slot_name = secret_slot,
                                                             telemetry::keys::commit_lsn = lsn{0x16B3748});
  const std::vector<std::string> expected{
      "streaming from the slot's acknowledged position (PostgreSQL 16)",
      "the connection ended; reconnecting",
      "reconnected; streaming after checkpoint 0/16B3748",
  };
  BOOST_TEST(t.lines == expected, boost::test_tools::per_element());
  BOOST_TEST(t.status.sessions() == 2U);
  for (const auto& line : t.lines) BOOST_TEST(line.find("q9") == std::string::npos, line);
}

BOOST_AUTO_TEST_CASE(starts_after_a_checkpoint) {
  harness t;
  telemetry::emit<telemetry::events::connection_slot_active>(t.events, telemetry::keys::slot_name = secret_slot,
                                                             telemetry::keys::commit_lsn = lsn{0x1A'0000'002B});
  BOOST_TEST(t.lines == (std::vector<std::string>{"streaming after checkpoint 1A/2B (PostgreSQL 16)"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_requested_stop_or_a_halt_is_not_a_reconnect) {
  harness t;
  t.stopping = true;
  telemetry::emit<telemetry::events::connection_disconnected>(t.events);
  t.stopping = false;
  telemetry::emit<telemetry::events::connection_disconnected>(t.events, telemetry::keys::lag_bytes = 4096,
                                                              telemetry::keys::reason = halt_reason::sink_too_slow);
  BOOST_TEST(t.lines.empty());
}

BOOST_AUTO_TEST_CASE(reports_checkpoint_file_retries) {
  harness t;
  telemetry::emit<telemetry::events::checkpoint_store_retrying>(
      t.events, telemetry::keys::slot_name = secret_slot, telemetry::keys::attempt = 2,
      telemetry::keys::max_retries = 5, telemetry::keys::error_class = replicant::errc::io_failed);
  BOOST_TEST(t.lines == (std::vector<std::string>{"writing the checkpoint failed [io_failed]; retry 2 of 5"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(summarises_the_run) {
  BOOST_TEST(tail::summary_line("stopped", 12, lsn{0x16B3748}) ==
             "stopped; 12 transactions written, acknowledged up to 0/16B3748");
  BOOST_TEST(tail::summary_line("the output was closed; stopped", 1, lsn{}) ==
             "the output was closed; stopped; 1 transaction written, acknowledged up to 0/0");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(halts)

BOOST_AUTO_TEST_CASE(start_refusals_exit_2_with_the_flag_to_pass) {
  const auto go = tail::from_halt(halted(halt_reason::go_forward_required));
  BOOST_TEST(tail::is_refusal(go));
  const auto go_text = tail::describe(go);
  BOOST_TEST(go_text.find("refused: ") != std::string::npos, go_text);
  BOOST_TEST(go_text.find("[go_forward_required]") != std::string::npos, go_text);
  BOOST_TEST(go_text.find("--go-forward-only") != std::string::npos, go_text);
  BOOST_TEST(go_text.find("--create-slot") != std::string::npos, go_text);

  // A missing slot is reported before anything was created or started, and the command line fixes it.
  const auto missing = tail::from_halt(halted(halt_reason::slot_missing));
  BOOST_TEST(tail::is_refusal(missing));
  const auto missing_text = tail::describe(missing);
  BOOST_TEST(missing_text.find("[slot_missing]") != std::string::npos, missing_text);
  BOOST_TEST(missing_text.find("--create-slot") != std::string::npos, missing_text);
}

BOOST_AUTO_TEST_CASE(halts_of_a_started_pipeline_exit_1) {
  for (const auto reason :
       {halt_reason::publication_missing, halt_reason::slot_invalidated, halt_reason::command_error_limit,
        halt_reason::checkpoint_store_failed, halt_reason::decode_failure, halt_reason::sink_failed}) {
    const auto f = tail::from_halt(halted(reason));
    BOOST_TEST(!tail::is_refusal(f), to_string(reason));
    const auto text = tail::describe(f);
    BOOST_TEST(text.find(" failed: ") != std::string::npos, text);
    BOOST_TEST(text.find("[" + std::string{to_string(reason)} + "]") != std::string::npos, text);
  }
  BOOST_TEST(tail::describe(tail::from_halt(halted(halt_reason::publication_missing))).find("--publication") !=
             std::string::npos);
  // Without a hint of replicant-tail's own, the library's operator action is printed.
  const auto invalidated = tail::describe(tail::from_halt(halted(halt_reason::slot_invalidated)));
  BOOST_TEST(invalidated.find("; action: recreate the slot") != std::string::npos, invalidated);
}

BOOST_AUTO_TEST_CASE(carries_the_details_of_the_halt) {
  replicant::halt h = halted(halt_reason::command_error_limit);
  h.sqlstate = "55006";
  h.attempts = 6;
  h.cause = make_error_code(replicant::errc::server_error);
  BOOST_TEST(tail::describe(tail::from_halt(h)) ==
             "replicant-tail: starting replication failed: replication commands kept failing before streaming "
             "began [command_error_limit]; the server reported an error; after 6 attempts; sqlstate 55006; the "
             "slot is in use by another consumer");

  replicant::halt bad = halted(halt_reason::decode_failure);
  bad.at = lsn{0x16B3748};
  bad.table = replicant::table_name{"public", "secret_table_q8"};
  const auto text = tail::describe(tail::from_halt(bad));
  BOOST_TEST(text.find("; at 0/16B3748") != std::string::npos, text);
  BOOST_TEST(text.find("q8") == std::string::npos, "no table name is carried over");
}

BOOST_AUTO_TEST_CASE(names_the_checkpoint_file_and_what_is_wrong_with_it) {
  replicant::halt mismatch = halted(halt_reason::checkpoint_store_failed);
  mismatch.cause = make_error_code(replicant::errc::store_mismatch);
  mismatch.attempts = 1;
  const auto text = tail::describe(tail::from_halt(mismatch));
  BOOST_TEST(text.find("keeping the checkpoint in --checkpoint-file failed") != std::string::npos, text);
  BOOST_TEST(text.find("another slot's") != std::string::npos, text);
  BOOST_TEST(text.find("after 1 attempt;") != std::string::npos, text);

  replicant::halt io = halted(halt_reason::checkpoint_store_failed);
  io.cause = make_error_code(replicant::errc::io_failed);
  BOOST_TEST(tail::describe(tail::from_halt(io)).find("writable") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(only_a_broken_pipe_is_a_closed_output) {
  replicant::halt h = halted(halt_reason::sink_failed);
  h.cause = std::make_error_code(std::errc::broken_pipe);
  BOOST_TEST(tail::is_closed_output(h));
  h.cause = std::make_error_code(std::errc::no_space_on_device);
  BOOST_TEST(!tail::is_closed_output(h));
  const auto text = tail::describe(tail::from_halt(h));
  BOOST_TEST(text.find("writing the output failed") != std::string::npos, text);
  BOOST_TEST(text.find("disk space") != std::string::npos, text);
  replicant::halt other = halted(halt_reason::checkpoint_store_failed);
  other.cause = std::make_error_code(std::errc::broken_pipe);
  BOOST_TEST(!tail::is_closed_output(other));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_tail_status_tests
