// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-prometheus's metrics (examples/prometheus/metrics.hpp): every series present from the
// start, telemetry events folded into counters, gauges and duration summaries, halts by reason,
// and nothing from the user (slot or table names) exported. The registry is read back in the text
// format, as prometheus-cpp serializes it for a scrape.
#include "../../../examples/prometheus/metrics.hpp"

#include <boost/test/unit_test.hpp>

#include <replicant/core/identifier.hpp>

#include <prometheus/text_serializer.h>

#include <chrono>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_prometheus_metrics_tests)

namespace prom = replicant::examples::prometheus;
namespace t = replicant::telemetry;
using namespace std::chrono_literals;
using replicant::lsn;

namespace {

// What a scrape of @p m would show: its registry in the text format.
auto render(const prom::telemetry_metrics& m) -> std::string {
  return prometheus::TextSerializer{}.Serialize(m.registry()->Collect());
}

// The samples of a render, `name{labels}` -> value text, checking each line's shape on the way.
auto samples_of(const std::string& text) -> std::map<std::string, std::string> {
  static const std::regex comment{R"(^# (HELP|TYPE) [a-z_]+ .+$)"};
  static const std::regex sample{R"(^([a-z_]+(\{[a-z_]+="[^"\\]*"\})?) ([0-9]+(\.[0-9]+)?(e-?[0-9]+)?)$)"};
  std::map<std::string, std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, comment)) continue;
    BOOST_TEST_REQUIRE(std::regex_match(line, m, sample), "malformed line: " << line);
    BOOST_TEST(out.emplace(m[1].str(), m[3].str()).second, "series twice: " << line);
  }
  return out;
}

auto event(std::string_view name) -> std::string {
  return "replicant_events_total{event=\"" + std::string{name} + "\"}";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(telemetry_metrics)

BOOST_AUTO_TEST_CASE(every_series_exists_from_the_start_at_zero) {
  const prom::telemetry_metrics m;
  const auto text = render(m);
  BOOST_TEST(text.back() == '\n');
  const auto s = samples_of(text);
  for (const auto name : t::event_names) {
    BOOST_TEST(s.at(event(name.substr(std::string_view{"replicant."}.size()))) == "0", name);
  }
  for (const auto reason : replicant::halt_reasons) {
    BOOST_TEST(s.at("replicant_halts_total{reason=\"" + std::string{to_string(reason)} + "\"}") == "0");
  }
  for (const char* op : {"insert", "update", "delete", "truncate", "snapshot"}) {
    BOOST_TEST(s.at("replicant_sink_changes_total{op=\"" + std::string{op} + "\"}") == "0");
  }
  BOOST_TEST(s.at("replicant_up") == "0");
  BOOST_TEST(s.at("replicant_connected") == "0");
  BOOST_TEST(s.at("replicant_checkpoint_lsn") == "0");
  BOOST_TEST(s.at("replicant_transactions_total") == "0");
  // A duration summary exactly for the events whose catalog entry measures one.
  BOOST_TEST(s.at("replicant_event_duration_seconds_count{event=\"sink.committed\"}") == "0");
  BOOST_TEST(s.at("replicant_event_duration_seconds_sum{event=\"sink.committed\"}") == "0");
  BOOST_TEST(s.count("replicant_event_duration_seconds_count{event=\"checkpoint.advanced\"}") == 0U);
  // Each family is described once, before its samples.
  BOOST_TEST(text.find("# TYPE replicant_events_total counter\n") < text.find("replicant_events_total{"));
  BOOST_TEST(text.find("# TYPE replicant_event_duration_seconds summary\n") != std::string::npos);
  BOOST_TEST(text.find("# TYPE replicant_checkpoint_lsn gauge\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(folds_the_events_of_a_pipeline_into_counters_and_gauges) {
  prom::telemetry_metrics m;
  t::dispatcher d;
  d.attach([&m](const t::event_record& e) { m.observe(e); });
  m.set_running(true);

  t::emit<t::events::connection_connected>(d, t::keys::kind = t::kind::primary);
  for (int i = 0; i < 3; ++i) {
    t::emit<t::events::transaction_assembled>(d, t::keys::commit_lsn = lsn{0x100}, t::keys::change_count = 4,
                                              t::keys::byte_size = 1000);
    t::emit<t::events::sink_committed>(d, t::keys::commit_lsn = lsn{0x100}, t::keys::duration = 250ms);
  }
  t::emit<t::events::checkpoint_advanced>(d, t::keys::commit_lsn = lsn{0x16'B374'D848});
  m.count_change(replicant::change_op::insert);
  m.count_change(replicant::change_op::insert);
  m.count_change(replicant::change_op::delete_);

  auto s = samples_of(render(m));
  BOOST_TEST(s.at("replicant_up") == "1");
  BOOST_TEST(s.at("replicant_connected") == "1");
  BOOST_TEST(s.at(event("connection.connected")) == "1");
  BOOST_TEST(s.at(event("sink.committed")) == "3");
  BOOST_TEST(s.at(event("transaction.assembled")) == "3");
  BOOST_TEST(s.at(event("checkpoint.advanced")) == "1");
  BOOST_TEST(s.at("replicant_transactions_total") == "3");
  BOOST_TEST(s.at("replicant_transaction_changes_total") == "12");
  BOOST_TEST(s.at("replicant_transaction_bytes_total") == "3000");
  BOOST_TEST(s.at("replicant_event_duration_seconds_count{event=\"sink.committed\"}") == "3");
  BOOST_TEST(s.at("replicant_event_duration_seconds_sum{event=\"sink.committed\"}") == "0.75");
  // The LSN 16/B374D848 as the byte position it is.
  BOOST_TEST(s.at("replicant_checkpoint_lsn") == std::to_string(0x16'B374'D848ULL));
  BOOST_TEST(s.at("replicant_sink_changes_total{op=\"insert\"}") == "2");
  BOOST_TEST(s.at("replicant_sink_changes_total{op=\"delete\"}") == "1");

  t::emit<t::events::connection_disconnected>(d);
  BOOST_TEST(samples_of(render(m)).at("replicant_connected") == "0");
}

BOOST_AUTO_TEST_CASE(counts_halts_by_reason_and_stops_being_up) {
  prom::telemetry_metrics m;
  m.set_running(true);
  m.record_halt(replicant::halt_reason::publication_missing);
  m.set_running(false);
  const auto s = samples_of(render(m));
  BOOST_TEST(s.at("replicant_up") == "0");
  BOOST_TEST(s.at("replicant_halts_total{reason=\"publication_missing\"}") == "1");
  BOOST_TEST(s.at("replicant_halts_total{reason=\"sink_failed\"}") == "0");
}

BOOST_AUTO_TEST_CASE(exports_no_name_the_user_chose) {
  prom::telemetry_metrics m;
  t::dispatcher d;
  d.attach([&m](const t::event_record& e) { m.observe(e); });
  const auto slot = replicant::slot_name::make("secret_slot_z1").value();
  const replicant::table_ref table{"public", "secret_table_z2"};
  t::emit<t::events::connection_slot_active>(d, t::keys::slot_name = slot, t::keys::commit_lsn = lsn{0x10});
  t::emit<t::events::snapshot_table_completed>(d, t::keys::table = table, t::keys::change_count = 5);
  const auto text = render(m);
  BOOST_TEST(text.find("z1") == std::string::npos);
  BOOST_TEST(text.find("z2") == std::string::npos);
  const auto s = samples_of(text);
  BOOST_TEST(s.at(event("connection.slot_active")) == "1");
  BOOST_TEST(s.at(event("snapshot.table_completed")) == "1");
}

BOOST_AUTO_TEST_CASE(ignores_events_outside_the_catalog) {
  prom::telemetry_metrics m;
  const auto before = render(m);
  m.observe(t::event_record{"replicant.not.an.event", {}, {}});
  BOOST_TEST(render(m) == before);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_prometheus_metrics_tests
