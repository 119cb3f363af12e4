// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_PROCESSES_FILE_SINK_HPP
#define REPLICANT_TESTS_SUPPORT_PROCESSES_FILE_SINK_HPP

/// @file
/// The scenario of the live tests of the example programs that follow a slot into one file of
/// changes, with a checkpoint file beside it (replicant-jsonl-sink, replicant-custom-policies): a
/// database of their own with a published table, the program's command line, its runs as child
/// processes, and its checkpoint file read back. support/checks/written_output.hpp reads the file
/// of changes. Boost.Test only: include it after the test module's `<boost/test/unit_test.hpp>`.

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/common/time_scale.hpp"
#include "support/processes/child_process.hpp"
#include "support/server/pg_cluster.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace replicant::test {

/**
 * A fresh database on the live server with `items (id bigint PRIMARY KEY, label text)` in
 * publication `pub`, a slot name, and a temporary directory for a file-writing example program:
 * its file of changes and the checkpoint file beside it (`<output>.checkpoint`), and each run's
 * standard output and error (`<run>.out`, `<run>.err`). A test derives its own scenario from it,
 * adding what only its program has.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
struct file_sink_scenario {
  /// For the program at @p program_binary, with names made from @p name (the database `<name>…`,
  /// the slot `<name>_slot…`, the directory `replicant-<name>-test.…`) and its file of changes
  /// @p output_name in the directory.
  file_sink_scenario(std::string_view program_binary, const std::string& name, const std::string& output_name)
      : binary{program_binary},
        db{live_server().unique_name(name)},
        slot{live_server().unique_name(name + "_slot")},
        dir{"replicant-" + name + "-test"},
        output{dir.path() / output_name},
        checkpoint{dir.path() / (output_name + ".checkpoint")} {
    live_server().create_database(db);
    sql("CREATE TABLE items (id bigint PRIMARY KEY, label text); CREATE PUBLICATION pub FOR TABLE items");
  }
  file_sink_scenario(const file_sink_scenario&) = delete;
  auto operator=(const file_sink_scenario&) -> file_sink_scenario& = delete;

  std::string_view binary;              ///< the program under test
  std::string db;                       ///< the database
  std::string slot;                     ///< the slot the program creates and follows
  temp_dir dir;                         ///< the program's files
  std::filesystem::path output;         ///< its file of changes
  std::filesystem::path checkpoint;     ///< its checkpoint file
  std::vector<std::string> own_args{};  ///< what every run of this program adds after `--output`

  /// Runs @p statements in the database.
  auto sql(const std::string& statements) -> void { live_server().sql(statements, db); }

  /// The program's command line: the database, slot, publication and output, own_args, a slot it
  /// creates and follows from now on with a status update every second, then @p extra.
  [[nodiscard]] auto args(const std::vector<std::string>& extra = {}) const -> std::vector<std::string> {
    std::vector<std::string> a{"--dsn",    live_server().dsn(db), "--slot", slot, "--publication", "pub",
                               "--output", output.string()};
    a.insert(a.end(), own_args.begin(), own_args.end());
    a.insert(a.end(), {"--create-slot", "--go-forward-only", "--status-interval", "1"});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }

  /// Starts run @p name of the program with args(@p extra) and waits until it streams (its slot is
  /// active; within 90 s, stretched by time_scale()). A run that ended first fails the test case,
  /// with what it printed on standard error.
  auto start(const std::string& name, const std::vector<std::string>& extra = {}) -> std::unique_ptr<child_process> {
    auto p = std::make_unique<child_process>(binary, args(extra), dir.path() / (name + ".out"),
                                             dir.path() / (name + ".err"));
    BOOST_TEST_REQUIRE(wait_until(
        [&] {
          return !p->running() || live_server().scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" +
                                                           slot + "' AND active",
                                                       db) == "1";
        },
        std::chrono::seconds(90)));
    BOOST_TEST_REQUIRE(p->running(), err(name));
    return p;
  }

  /// What run @p name printed on standard error.
  [[nodiscard]] auto err(const std::string& name) const -> std::string {
    return read_file(dir.path() / (name + ".err"));
  }

  /// The checkpoint file's LSN (none while the file does not exist); a file that cannot be read
  /// fails the test case.
  [[nodiscard]] auto stored_checkpoint() const -> std::optional<lsn> {
    const auto r = file_checkpoint_store{checkpoint}.read(slot_name::make(slot).value());
    BOOST_TEST_REQUIRE(r.has_value());
    return *r;
  }
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_PROCESSES_FILE_SINK_HPP
