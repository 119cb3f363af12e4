// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-recipe-lib-owned: a complete sink under lib_owned_checkpoint, run with either of the
// library's checkpoint stores (docs/checkpoint/lib_owned.md quotes it):
//
//   replicant-recipe-lib-owned SOURCE_CONNINFO OUTPUT_FILE file CHECKPOINT_FILE
//   replicant-recipe-lib-owned SOURCE_CONNINFO OUTPUT_FILE postgres STORE_CONNINFO
//
// Streams the publication `recipe_pub` through the slot `recipe_file` or `recipe_postgres` (created
// if missing, from now on) and appends one line per change to OUTPUT_FILE. SIGINT or SIGTERM stops
// it cleanly. tests/integration/examples/recipes.cpp runs it with both stores, restarts it, and
// counts.

#include "run.hpp"

#include <replicant/replicant.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <iostream>
#include <string>
#include <string_view>
#include <system_error>

namespace {

//[recipe_lib_owned_sink
// Appends one line per change to a file: `<commit LSN> <operation> <schema>.<table>`. A file cannot
// hold a checkpoint atomically with its lines, so the library keeps the checkpoint in a store and
// writes it after handle_transaction() returned.
class line_sink {
 public:
  explicit line_sink(int fd) noexcept : fd_(fd) {}

  // Durable when it returns: the checkpoint is written right after, and a line not yet on disk
  // then would be lost for good by a crash.
  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<void> {
    std::string lines;
    for (const replicant::change& c : txn.changes()) {
      lines += replicant::to_string(txn.commit_lsn()) + ' ' + std::string{replicant::to_string(c.op())} + ' ' +
               c.relation().schema + '.' + c.relation().table + '\n';
    }
    if (const auto ec = txn.read_error()) return replicant::unexpected(ec);  // a spilled transaction not read back
    for (std::size_t done = 0; done < lines.size();) {
      const auto n = ::write(fd_, lines.data() + done, lines.size() - done);
      if (n < 0 && errno != EINTR) return replicant::unexpected(std::error_code{errno, std::system_category()});
      if (n > 0) done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd_) != 0) return replicant::unexpected(std::error_code{errno, std::system_category()});
    return {};
  }
  // No checkpoint() member: the store's checkpoint is the only one (declaring one does not compile).

 private:
  int fd_;
};
//]

static_assert(replicant::lib_mode_sink<line_sink>);

using file_policy = replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>;
using postgres_policy = replicant::lib_owned_checkpoint<replicant::postgres_checkpoint_store>;
// The types the two functions below build, for the stop signal.
using file_pipeline = replicant::pgoutput_pipeline<line_sink, file_policy>;
using postgres_pipeline = replicant::pgoutput_pipeline<line_sink, postgres_policy>;

constexpr std::string_view program = "replicant-recipe-lib-owned";

//[recipe_lib_owned_file_store
// Streams the publication recipe_pub into @p sink until SIGINT or SIGTERM (examples/recipes/run.hpp).
auto with_file_store(line_sink& sink, const std::string& source, const std::string& checkpoint_file) -> int {
  using policy = replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>;
  replicant::pgoutput_options pg{.publications = {"recipe_pub"}};
  replicant::pipeline_options o{.conninfo = source, .slot = "recipe_file", .start = replicant::start::go_forward{}};
  // One file per slot; its directory must exist. A checkpoint is written after every transaction.
  replicant::pgoutput_pipeline<line_sink, policy> p{
      sink, pg, policy{.store = replicant::file_checkpoint_store{checkpoint_file}}, o};
  return replicant::examples::recipes::run_until_stopped(p, program);
}
//]

//[recipe_lib_owned_postgres_store
auto with_postgres_store(line_sink& sink, const std::string& source, const std::string& store_conninfo) -> int {
  using policy = replicant::lib_owned_checkpoint<replicant::postgres_checkpoint_store>;
  replicant::pgoutput_options pg{.publications = {"recipe_pub"}};
  replicant::pipeline_options o{.conninfo = source, .slot = "recipe_postgres", .start = replicant::start::go_forward{}};
  // The store connects on first use and creates its table (replicant_checkpoints) if missing. It
  // cannot be copied: build it in place, as here, or std::move it in.
  replicant::postgres_store_options store{.conninfo = store_conninfo};
  replicant::pgoutput_pipeline<line_sink, policy> p{
      sink, pg,
      policy{.store = replicant::postgres_checkpoint_store{store},
             .batch = replicant::checkpoint_batching{.max_transactions = 100, .max_delay = std::chrono::seconds(1)}},
      o};
  return replicant::examples::recipes::run_until_stopped(p, program);
}
//]

}  // namespace

auto main(int argc, char** argv) -> int {
  const std::string_view store = argc == 5 ? argv[3] : "";
  if (store != "file" && store != "postgres") {
    std::cerr << "usage: " << program << " SOURCE_CONNINFO OUTPUT_FILE file CHECKPOINT_FILE\n"
              << "       " << program << " SOURCE_CONNINFO OUTPUT_FILE postgres STORE_CONNINFO\n";
    return 2;
  }
  if (!replicant::examples::stop_signal::install(
          &replicant::examples::stop_running_pipelines<file_pipeline, postgres_pipeline>)) {
    return 1;
  }
  const int fd = ::open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::cerr << program << ": cannot open the output file\n";
    return 1;
  }
  line_sink sink{fd};
  const int status =
      store == "file" ? with_file_store(sink, argv[1], argv[4]) : with_postgres_store(sink, argv[1], argv[4]);
  ::close(fd);
  return status;
}
