// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail's command line (examples/tail/options.hpp), how it maps onto the replication
// pipeline's options, and its value-free refusals (examples/tail/failure.hpp).
#include "../../../examples/tail/options.hpp"

#include <boost/test/unit_test.hpp>

#include "../../../examples/tail/probe.hpp"

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_tail_options_tests)

namespace tail = replicant::examples::tail;
using replicant::halt_reason;

namespace {

auto parse(std::initializer_list<const char*> args) -> tail::parsed_options {
  const std::vector<const char*> v(args);
  return tail::parse_options(v);
}

// The refusal's printed line, checked to exist.
auto refusal(std::initializer_list<const char*> args) -> std::string {
  auto p = parse(args);
  BOOST_TEST_REQUIRE(!p);
  BOOST_TEST(tail::is_refusal(p.error()));
  return tail::describe(p.error());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tail_options)

BOOST_AUTO_TEST_CASE(parses_every_option_in_both_spellings) {
  auto p = parse({"--dsn", "host=/tmp dbname=app", "--slot=orders_1", "--publication", "pub_a", "--publication=PubB",
                  "--publication", "pub_a", "--create-slot", "--go-forward-only", "--checkpoint-file", "/var/lib/cp",
                  "--proto-version=3", "--messages", "--status-interval", "5"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  BOOST_TEST(p->dsn == "host=/tmp dbname=app");
  BOOST_TEST(p->slot == "orders_1");
  BOOST_TEST(p->publications == (std::vector<std::string>{"pub_a", "PubB"}), "duplicates dropped, case kept");
  BOOST_TEST(p->create_slot);
  BOOST_TEST(p->go_forward_only);
  BOOST_TEST_REQUIRE(p->checkpoint_file.has_value());
  BOOST_TEST(p->checkpoint_file->string() == "/var/lib/cp");
  BOOST_TEST_REQUIRE(p->proto_version.has_value());
  BOOST_TEST(*p->proto_version == 3U);
  BOOST_TEST(p->messages);
  BOOST_TEST(p->status_interval.count() == 5);
  BOOST_TEST(!p->help);
}

BOOST_AUTO_TEST_CASE(has_safe_defaults) {
  auto p = parse({"--slot", "s", "--publication", "p"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  BOOST_TEST(p->dsn.empty(), "libpq's PG* defaults");
  BOOST_TEST(!p->create_slot);
  BOOST_TEST(!p->go_forward_only);
  BOOST_TEST(!p->checkpoint_file.has_value());
  BOOST_TEST(!p->proto_version.has_value());
  BOOST_TEST(!p->messages);
  BOOST_TEST(p->status_interval.count() == 10);
}

BOOST_AUTO_TEST_CASE(help_needs_nothing_else) {
  auto p = parse({"--help"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  BOOST_TEST(p->help);
  BOOST_TEST(static_cast<bool>(parse({"-h"})));
  BOOST_TEST(tail::usage().find("--go-forward-only") != std::string_view::npos);
}

BOOST_AUTO_TEST_CASE(refuses_malformed_names_without_repeating_them) {
  const auto slot = refusal({"--slot", "Orders-Secret-q1", "--publication", "p"});
  BOOST_TEST(slot.find("[invalid_identifier]") != std::string::npos, slot);
  BOOST_TEST(slot.find("--slot") != std::string::npos, slot);
  BOOST_TEST(slot.find("q1") == std::string::npos);
  BOOST_TEST(slot.find("Secret") == std::string::npos);

  auto p = parse({"--slot", "ok", "--publication", "pub'; DROP TABLE x; --q2"});
  BOOST_TEST_REQUIRE(!p);
  BOOST_TEST((p.error().reason == halt_reason::invalid_identifier));
  BOOST_TEST(p.error().cause == replicant::identifier_error::bad_character);
  BOOST_TEST(tail::describe(p.error()).find("q2") == std::string::npos);

  BOOST_TEST(!parse({"--slot", "", "--publication", "p"}));
  BOOST_TEST(!parse({"--slot", std::string(64, 'a').c_str(), "--publication", "p"}));
  BOOST_TEST(static_cast<bool>(parse({"--slot", std::string(63, 'a').c_str(), "--publication", "p"})));
}

BOOST_AUTO_TEST_CASE(refuses_incomplete_or_unknown_options) {
  BOOST_TEST(refusal({"--publication", "p"}).find("--slot refused") != std::string::npos);
  BOOST_TEST(refusal({"--publication", "p"}).find("is required") != std::string::npos);
  BOOST_TEST(refusal({"--slot", "s"}).find("--publication refused") != std::string::npos);
  BOOST_TEST(refusal({"--slot", "s", "--publication"}).find("--publication refused") != std::string::npos);
  BOOST_TEST(refusal({"--slot", "s", "--publication"}).find("needs a value") != std::string::npos);
  BOOST_TEST(refusal({"--slot", "s", "--publication", "p", "--messages=yes"}).find("--messages refused") !=
             std::string::npos);
  BOOST_TEST(refusal({"--slot", "s", "--publication", "p", "--proto-version", "5"}).find("1, 2, 3 or 4") !=
             std::string::npos);
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--proto-version", "3x"}));
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--status-interval", "0"}));
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--status-interval", "-1"}));
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--messages=yes"}));
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--checkpoint-file="}));

  // An unknown option is named when it looks like one, and never with its value.
  const auto named = refusal({"--slot", "s", "--publication", "p", "--pasword=hunter2"});
  BOOST_TEST(named.find("--pasword") != std::string::npos, named);
  BOOST_TEST(named.find("hunter2") == std::string::npos);
  const auto hidden = refusal({"--slot", "s", "--publication", "p", "postgres://u:hunter2@h/db"});
  BOOST_TEST(hidden.find("hunter2") == std::string::npos, hidden);
  BOOST_TEST(hidden.find("(not shown)") != std::string::npos, hidden);
}

BOOST_AUTO_TEST_CASE(parses_the_end_position) {
  auto p = parse({"--slot", "s", "--publication", "p", "--end-lsn", "16/B374D848"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  BOOST_TEST_REQUIRE(p->end_lsn.has_value());
  BOOST_TEST(replicant::to_string(*p->end_lsn) == "16/B374D848");
  BOOST_TEST((tail::pipeline_options_for(*p).end_lsn == p->end_lsn));
  auto d = parse({"--slot", "s", "--publication", "p"});
  BOOST_TEST_REQUIRE(static_cast<bool>(d));
  BOOST_TEST(!d->end_lsn.has_value(), "streams until stopped");
  BOOST_TEST(!tail::pipeline_options_for(*d).end_lsn.has_value());
  // Not an LSN: refused without repeating it.
  const auto text = refusal({"--slot", "s", "--publication", "p", "--end-lsn=s3cr3t/q7"});
  BOOST_TEST(text.find("--end-lsn") != std::string::npos, text);
  BOOST_TEST(text.find("q7") == std::string::npos, text);
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--end-lsn", "0/"}));
}

// --help lists every option, each with its default: `[...]` for a value or a flag, REQUIRED for
// the two options without one. Every option of the parser is found by its name in the text.
BOOST_AUTO_TEST_CASE(help_lists_every_option_with_its_default) {
  const auto help = tail::usage();
  const std::vector<std::string> options{"--dsn",
                                         "--slot",
                                         "--publication",
                                         "--create-slot",
                                         "--go-forward-only",
                                         "--snapshot",
                                         "--progress-interval",
                                         "--checkpoint-file",
                                         "--proto-version",
                                         "--messages",
                                         "--status-interval",
                                         "--end-lsn"};
  std::size_t lines = 0;
  std::istringstream in{help};
  for (std::string line; std::getline(in, line);) {
    const auto name_at = line.find("--");
    if (line.rfind("  -", 0) != 0 || name_at == std::string::npos) continue;  // not an option's first line
    const auto name = line.substr(name_at, line.find_first_of(" ,", name_at) - name_at);
    if (name == "--help") continue;
    ++lines;
    BOOST_TEST((std::find(options.begin(), options.end(), name) != options.end()), "documented: " << name);
    const auto before_text = line.substr(0, 34);  // the name, the value's label and the default
    BOOST_TEST((before_text.find('[') != std::string::npos || line.find("REQUIRED") != std::string::npos),
               "a default for " << name << ": " << line);
  }
  BOOST_TEST(lines == options.size(), help);
  BOOST_TEST(help.find("[10]") != std::string::npos, help);
  BOOST_TEST(help.find("[5]") != std::string::npos, help);
  BOOST_TEST(help.find("[off]") != std::string::npos, help);
}

BOOST_AUTO_TEST_CASE(create_slot_needs_go_forward_only) {
  // A slot it creates starts now: the gap is accepted on the command line, checkpoint file or not.
  const auto text = refusal({"--slot", "s", "--publication", "p", "--create-slot", "--checkpoint-file", "cp"});
  BOOST_TEST(text.find("[go_forward_required]") != std::string::npos, text);
  BOOST_TEST(text.find("--go-forward-only") != std::string::npos, text);
  BOOST_TEST(static_cast<bool>(parse({"--slot", "s", "--publication", "p", "--go-forward-only"})),
             "going forward on an existing slot needs no --create-slot");
}

BOOST_AUTO_TEST_CASE(parses_the_snapshot_options) {
  auto p = parse({"--slot", "s", "--publication", "p", "--snapshot", "--progress-interval=2"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  BOOST_TEST(p->snapshot);
  BOOST_TEST(!p->go_forward_only);
  BOOST_TEST(p->progress_interval.count() == 2);
  auto d = parse({"--slot", "s", "--publication", "p"});
  BOOST_TEST_REQUIRE(static_cast<bool>(d));
  BOOST_TEST(!d->snapshot);
  BOOST_TEST(d->progress_interval.count() == 5);
  BOOST_TEST(tail::usage().find("--snapshot") != std::string_view::npos);
  BOOST_TEST(tail::usage().find("--progress-interval") != std::string_view::npos);

  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--snapshot=yes"}), "a flag");
  BOOST_TEST(refusal({"--slot", "s", "--publication", "p", "--progress-interval", "0"}).find("1 to 3600") !=
             std::string::npos);
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--progress-interval", "3601"}));
  BOOST_TEST(!parse({"--slot", "s", "--publication", "p", "--progress-interval"}));
}

BOOST_AUTO_TEST_CASE(snapshot_and_go_forward_only_exclude_each_other) {
  auto p = parse({"--slot", "s", "--publication", "p", "--snapshot", "--go-forward-only"});
  BOOST_TEST_REQUIRE(!p);
  BOOST_TEST(p.error().code == replicant::errc::invalid_options);
  BOOST_TEST(tail::is_refusal(p.error()), "exit status 2: nothing started");
  const auto text = tail::describe(p.error());
  BOOST_TEST(text.find("[invalid_options]") != std::string::npos, text);
  BOOST_TEST(text.find("--snapshot") != std::string::npos, text);
  BOOST_TEST(text.find("--go-forward-only") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(snapshot_accepts_create_slot_without_go_forward_only) {
  // The snapshot shows what is there before the slot's creation: no gap to accept.
  const auto p = parse({"--slot", "s", "--publication", "p", "--snapshot", "--create-slot"});
  BOOST_TEST(static_cast<bool>(p));
  const auto text = refusal({"--slot", "s", "--publication", "p", "--create-slot"});
  BOOST_TEST(text.find("--snapshot") != std::string::npos, "the refusal names the other way: " << text);
}

BOOST_AUTO_TEST_CASE(maps_snapshot_onto_the_pipeline_options) {
  auto p = parse({"--slot", "s", "--publication", "p", "--snapshot"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  // No checkpoint yet: the slot is created with the snapshot.
  const auto fresh = tail::pipeline_options_for(*p);
  const auto* snapshot = std::get_if<replicant::start::point_in_time_snapshot>(&fresh.start);
  BOOST_TEST_REQUIRE(snapshot != nullptr);
  BOOST_TEST(fresh.create_slot);
  BOOST_TEST(snapshot->batch_rows == tail::snapshot_batch_rows);
  BOOST_TEST(replicant::validate(fresh).has_value());
  // A checkpoint exists: the snapshot was taken by an earlier run. Resuming never creates the slot,
  // not even with --create-slot, since a slot made now would begin after a gap.
  const auto resuming = tail::pipeline_options_for(*p, true);
  BOOST_TEST(std::holds_alternative<replicant::start::point_in_time_snapshot>(resuming.start));
  BOOST_TEST(!resuming.create_slot);
  auto c = parse({"--slot", "s", "--publication", "p", "--snapshot", "--create-slot"});
  BOOST_TEST_REQUIRE(static_cast<bool>(c));
  BOOST_TEST(tail::pipeline_options_for(*c).create_slot);
  BOOST_TEST(!tail::pipeline_options_for(*c, true).create_slot);

  // Without --snapshot nothing changes: --create-slot --go-forward-only creates, checkpoint or not.
  auto g = parse({"--slot", "s", "--publication", "p", "--create-slot", "--go-forward-only"});
  BOOST_TEST_REQUIRE(static_cast<bool>(g));
  BOOST_TEST(std::holds_alternative<replicant::start::go_forward>(tail::pipeline_options_for(*g, true).start));
  BOOST_TEST(tail::pipeline_options_for(*g, true).create_slot);
}

BOOST_AUTO_TEST_CASE(explains_the_snapshot_halts_in_its_own_terms) {
  replicant::halt h;
  h.reason = halt_reason::snapshot_incomplete;
  const auto f = tail::from_halt(h);
  BOOST_TEST(tail::is_refusal(f), "reported before anything starts: exit status 2");
  const auto text = tail::describe(f);
  BOOST_TEST(text.find("choosing where to start refused") != std::string::npos, text);
  BOOST_TEST(text.find("[snapshot_incomplete]") != std::string::npos, text);
  BOOST_TEST(text.find("pg_drop_replication_slot") != std::string::npos, text);
  BOOST_TEST(text.find("--go-forward-only") != std::string::npos, text);

  h.reason = halt_reason::snapshot_failed;
  h.cause = make_error_code(replicant::errc::server_error);
  const auto failed = tail::from_halt(h);
  BOOST_TEST(!tail::is_refusal(failed));
  const auto failed_text = tail::describe(failed);
  BOOST_TEST(failed_text.find("taking the snapshot failed") != std::string::npos, failed_text);
  BOOST_TEST(failed_text.find("[snapshot_failed]") != std::string::npos, failed_text);
}

BOOST_AUTO_TEST_CASE(maps_onto_the_pipeline_options) {
  auto p = parse({"--dsn", "host=/tmp dbname=app", "--slot=orders_1", "--publication", "pub_a", "--publication=PubB",
                  "--create-slot", "--go-forward-only", "--proto-version=3", "--messages", "--status-interval", "5"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  const auto o = tail::pipeline_options_for(*p);
  BOOST_TEST(o.conninfo == "host=/tmp dbname=app");
  BOOST_TEST(o.slot == "orders_1");
  BOOST_TEST(o.create_slot);
  BOOST_TEST(std::holds_alternative<replicant::start::go_forward>(o.start));
  BOOST_TEST((o.status_interval == std::chrono::seconds(5)));
  BOOST_TEST(replicant::validate(o).has_value());
  const auto pg = tail::pgoutput_options_for(*p);
  BOOST_TEST(pg.publications == (std::vector<std::string>{"pub_a", "PubB"}));
  BOOST_TEST(pg.protocol_version == 3U);
  BOOST_TEST(pg.messages);
  BOOST_TEST(replicant::pgoutput_decoder{pg}.validate().has_value());

  // The defaults: libpq's PG* variables (the pipeline refuses an empty connection string, so the
  // program's name stands in), no slot creation, the highest protocol, no messages.
  auto d = parse({"--slot", "s", "--publication", "p"});
  BOOST_TEST_REQUIRE(static_cast<bool>(d));
  const auto od = tail::pipeline_options_for(*d);
  BOOST_TEST(od.conninfo == "fallback_application_name=replicant-tail");
  BOOST_TEST(!od.create_slot, "the pipeline's default is to create; replicant-tail's is not to");
  BOOST_TEST(std::holds_alternative<replicant::start::resume_only>(od.start));
  BOOST_TEST(tail::pgoutput_options_for(*d).protocol_version == 0U);
  BOOST_TEST(!tail::pgoutput_options_for(*d).messages);
  BOOST_TEST((od.status_interval == std::chrono::seconds(10)));
  BOOST_TEST(replicant::validate(od).has_value());
}

BOOST_AUTO_TEST_CASE(checks_the_protocol_against_the_server_before_starting) {
  auto p = parse({"--slot", "s", "--publication", "p", "--proto-version", "4"});
  BOOST_TEST_REQUIRE(static_cast<bool>(p));
  BOOST_TEST(static_cast<bool>(tail::check_server(160000, *p)));
  const auto old = tail::check_server(150007, *p);
  BOOST_TEST_REQUIRE(!old);
  BOOST_TEST(old.error().code == replicant::errc::unsupported_server);
  BOOST_TEST(tail::describe(old.error()).find("--proto-version") != std::string::npos);
  auto d = parse({"--slot", "s", "--publication", "p"});
  BOOST_TEST_REQUIRE(static_cast<bool>(d));
  BOOST_TEST(static_cast<bool>(tail::check_server(150007, *d)));
  BOOST_TEST(!tail::check_server(140011, *d), "PostgreSQL 14 is too old");
}

BOOST_AUTO_TEST_CASE(describes_failures_by_name_with_sqlstate_and_position) {
  const tail::failure f{.step = "starting replication",
                        .code = make_error_code(replicant::errc::server_error),
                        .hint = "the slot is in use by another consumer",
                        .sqlstate = "55006",
                        .at = replicant::lsn{0x16B3748}};
  BOOST_TEST(tail::describe(f) ==
             "replicant-tail: starting replication failed: the server reported an error [server_error]; at "
             "0/16B3748; sqlstate 55006; the slot is in use by another consumer");
  BOOST_TEST(!tail::is_refusal(f));

  const tail::failure halted{.step = "checking the slot",
                             .code = make_error_code(replicant::errc::halted),
                             .reason = halt_reason::slot_invalidated};
  const auto text = tail::describe(halted);
  BOOST_TEST(text.find("[slot_invalidated]; action: ") != std::string::npos, text);

  // A SQLSTATE comes from the server: anything that is not one is not printed.
  const tail::failure odd{.step = "x", .code = make_error_code(replicant::errc::server_error), .sqlstate = "bad\n"};
  BOOST_TEST(tail::describe(odd).find("sqlstate (malformed)") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_tail_options_tests
