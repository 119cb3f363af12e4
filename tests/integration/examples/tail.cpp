// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail (examples/tail) end to end against a live server, run once per PostgreSQL major:
// the exact JSON lines of a workload, a clean stop on SIGINT, the checkpoint file (in the format of
// replicant::file_checkpoint_store, bound to its slot), a restart that prints exactly the new
// transactions (also from a slot that re-sends old ones), a server restart survived mid-stream,
// the value-free refusals, and --snapshot: the existing rows first, then the stream with no gap and
// no duplicate under a concurrent writer, the progress lines on stderr, and SIGINT mid-snapshot.
//
// The binary is the build's own: examples/tail/CMakeLists.txt passes its path as REPLICANT_TAIL_BINARY.
#include "../../../examples/tail/failure.hpp"

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/processes/process.hpp"
#include "support/server/pg_cluster.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;  // NOLINT: POSIX, for posix_spawn

BOOST_AUTO_TEST_SUITE(examples_tail_tests)

namespace utf = boost::unit_test;
namespace tail = replicant::examples::tail;
using replicant::test::live_server;
using replicant::test::read_file;

namespace {

#ifdef REPLICANT_TAIL_BINARY
constexpr std::string_view tail_binary = REPLICANT_TAIL_BINARY;
#else
constexpr std::string_view tail_binary;
#endif

// Skips the live tests of a build that has no replicant-tail (examples switched off), saying why.
const replicant::test::binary_known binary_known{tail_binary, "REPLICANT_TAIL_BINARY", "replicant-tail"};

using namespace std::chrono_literals;

// replicant-tail as a child process: stdout through a pipe read line by line, stderr into a file.
class tail_process {
 public:
  tail_process(const std::vector<std::string>& args, const std::filesystem::path& stderr_file) {
    int out[2];
    BOOST_TEST_REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    BOOST_TEST_REQUIRE(err >= 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
    std::vector<std::string> argv_storage{std::string{tail_binary}};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv_storage[0].c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(err);
    out_ = out[0];
    BOOST_TEST_REQUIRE(rc == 0);
  }
  tail_process(const tail_process&) = delete;
  auto operator=(const tail_process&) -> tail_process& = delete;
  ~tail_process() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }

  // The next line of stdout (without its newline), or nothing on EOF or after the timeout.
  auto read_line(std::chrono::milliseconds timeout) -> std::optional<std::string> {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left <= 0ms) return std::nullopt;
      pollfd fd{out_, POLLIN, 0};
      if (::poll(&fd, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[65536];
      const ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;  // EOF: the process closed its output
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  // Exactly @p n lines, failing the test when they do not all arrive in time.
  auto read_lines(std::size_t n, std::chrono::milliseconds timeout = 30s) -> std::vector<std::string> {
    std::vector<std::string> lines;
    while (lines.size() < n) {
      auto line = read_line(timeout);
      if (!line) {
        BOOST_TEST_ERROR("only " << lines.size() << " of " << n << " lines arrived");
        break;
      }
      lines.push_back(std::move(*line));
    }
    return lines;
  }

  // Everything stdout still holds until EOF (after the process ended).
  auto rest() -> std::string {
    std::string all;
    while (auto line = read_line(10s)) all += *line + "\n";
    return all + buffer_;
  }

  [[nodiscard]] auto running() -> bool {
    if (pid_ <= 0 || exited_) return false;
    const pid_t r = ::waitpid(pid_, &status_, WNOHANG);
    exited_ = r == pid_;  // reaped here: wait() reads the status kept
    return r == 0;
  }

  auto interrupt() -> void { ::kill(pid_, SIGINT); }

  // Closes our end of its stdout, as `replicant-tail | head -n 1` does after one line.
  auto close_output() -> void {
    ::close(out_);
    out_ = -1;
  }

  // The exit status; -1 when it did not exit within the timeout (it is then killed) or died of a signal.
  auto wait(std::chrono::milliseconds timeout = 30s) -> int {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      const pid_t r = exited_ ? pid_ : ::waitpid(pid_, &status_, WNOHANG);
      if (r == pid_) {
        pid_ = 0;
        return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
      }
      std::this_thread::sleep_for(20ms);
    }
    return -1;
  }

 private:
  pid_t pid_ = 0;
  bool exited_ = false;  // running() reaped it
  int out_ = -1;
  int status_ = 0;
  std::string buffer_;
};

// Waits until the slot is active (the tail is streaming from it), failing if the tail exits first.
auto wait_until_streaming(tail_process& p, const std::string& db, const std::string& slot) -> void {
  auto& pg = live_server();
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    BOOST_TEST_REQUIRE(p.running(), "replicant-tail exited before streaming");
    const auto rows = pg.sql("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active", db);
    if (!rows.empty()) return;
    std::this_thread::sleep_for(50ms);
  }
  BOOST_FAIL("replicant-tail did not start streaming");
}

// The commit LSN that the checkpoint file at @p path holds for @p slot, as text; empty when the file
// does not exist. Read back the way replicant-tail reads it.
auto stored_checkpoint(const std::filesystem::path& path, const std::string& slot) -> std::string {
  const auto r = replicant::file_checkpoint_store{path}.read(replicant::slot_name::make(slot).value());
  BOOST_TEST_REQUIRE(r.has_value(), "the checkpoint file is readable and of this slot");
  return *r ? replicant::to_string(**r) : std::string{};
}

// An insert of a row with only its key set, as printed.
auto insert_line(int id) -> std::string {
  return R"({"op":"insert","schema":"public","table":"items","record":{"id":)" + std::to_string(id) +
         R"(,"name":null,"price":null,"tags":null,"big":null,"doc":null,"seen":null}})";
}

// One output line split into what varies from run to run (position, xid, time) and the rest.
struct line_parts {
  std::string lsn;
  std::string xid;
  std::string body;
};

auto split_line(const std::string& line) -> line_parts {
  static const std::regex head{
      R"re(^\{"lsn":"([0-9A-F]{1,8}/[0-9A-F]{1,8})","xid":([0-9]+),"commit_time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z",)re"};
  std::smatch m;
  if (!std::regex_search(line, m, head)) {
    BOOST_TEST_ERROR("line without the transaction prefix: " << line);
    return {};
  }
  return {m[1].str(), m[2].str(), "{" + m.suffix().str()};
}

// The bodies of @p lines, checking that consecutive transactions have increasing commit LSNs and
// that the lines of one transaction share LSN and xid. Returns the bodies and the last LSN.
struct checked_output {
  std::vector<std::string> bodies;
  std::string last_lsn;
  std::size_t transactions = 0;
};

auto check_lines(const std::vector<std::string>& lines) -> checked_output {
  checked_output out;
  std::string xid;
  for (const auto& line : lines) {
    const auto parts = split_line(line);
    if (parts.lsn != out.last_lsn) {
      if (!out.last_lsn.empty()) {
        BOOST_TEST(replicant::parse_lsn(parts.lsn).value() > replicant::parse_lsn(out.last_lsn).value());
        BOOST_TEST(parts.xid != xid);
      }
      ++out.transactions;
      out.last_lsn = parts.lsn;
      xid = parts.xid;
    }
    BOOST_TEST(parts.xid == xid);
    out.bodies.push_back(parts.body);
  }
  return out;
}

// The fixture of one scenario: its own database, table and publication.
struct scenario {
  std::string db = live_server().unique_name("tail");
  replicant::test::temp_dir dir{"replicant-tail-test"};

  scenario() {
    auto& pg = live_server();
    pg.create_database(db);
    pg.sql(
        "CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10,2), tags text[], big text, doc jsonb, "
        "seen timestamptz);"
        "ALTER TABLE items ALTER COLUMN big SET STORAGE EXTERNAL;"  // out of line, uncompressed: TOASTed
        "CREATE TABLE other (id int PRIMARY KEY);"                  // not published
        "CREATE PUBLICATION pub FOR TABLE items",
        db);
  }

  [[nodiscard]] auto args(const std::string& slot, const std::filesystem::path& checkpoint) const
      -> std::vector<std::string> {
    return {"--dsn",
            live_server().dsn(db),
            "--slot",
            slot,
            "--publication",
            "pub",
            "--create-slot",
            "--go-forward-only",
            "--checkpoint-file",
            checkpoint.string(),
            "--status-interval",
            "1"};
  }

  auto sql(const std::string& statements) -> void { live_server().sql(statements, db); }
};

const std::string big_value(5000, 'x');
constexpr std::string_view secret = "s3cr3t-row-value";

// Waits until the file @p path contains @p text, failing the test after @p timeout.
auto wait_for_text(const std::filesystem::path& path, std::string_view text, std::chrono::milliseconds timeout = 60s)
    -> bool {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (read_file(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(20ms);
  }
  BOOST_TEST_ERROR("'" << text << "' did not appear in " << path.filename());
  return false;
}

// One line of `--snapshot` output, reduced to what the replay below needs: where it sits (lsn),
// what it does, the key and the name it leaves the row with. The test's names never need JSON
// escapes, so a regular expression reads them.
struct row_event {
  std::string lsn;
  std::string op;
  int id = 0;
  std::optional<std::string> name;  // the record's name (null: none)
};

auto parse_row_event(const std::string& line) -> std::optional<row_event> {
  static const std::regex head{R"re(^\{"lsn":"([0-9A-F]{1,8}/[0-9A-F]{1,8})",)re"};
  static const std::regex op{R"re("op":"([a-z]+)","schema":"public","table":"items")re"};
  static const std::regex record{R"re("record":\{"id":(-?[0-9]+),"name":(null|"[^"]*"))re"};
  static const std::regex old{R"re("old":\{"id":(-?[0-9]+)\})re"};
  std::smatch h;
  std::smatch o;
  if (!std::regex_search(line, h, head) || !std::regex_search(line, o, op) || line.back() != '}') return std::nullopt;
  row_event e{h[1].str(), o[1].str(), 0, std::nullopt};
  std::smatch m;
  if (std::regex_search(line, m, record)) {
    e.id = std::stoi(m[1].str());
    if (m[2].str() != "null") e.name = m[2].str().substr(1, m[2].str().size() - 2);
  } else if (std::regex_search(line, m, old)) {
    e.id = std::stoi(m[1].str());
  } else {
    return std::nullopt;
  }
  return e;
}

// The table's rows as id -> name ("<null>" for NULL), for comparing a replay with the source.
auto source_rows(const std::string& db) -> std::map<int, std::string> {
  std::map<int, std::string> rows;
  for (const auto& r : live_server().sql("SELECT id, coalesce(name, '<null>') FROM items", db)) {
    rows[std::stoi(*r[0])] = *r[1];
  }
  return rows;
}

// Counts the lines of @p text that contain @p needle.
auto count_lines_with(const std::string& text, std::string_view needle) -> std::size_t {
  std::size_t n = 0;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos ? 1U : 0U;
  return n;
}

// Inserts, updates and deletes rows of `items` in transactions of their own until stopped: the
// concurrent writer of the snapshot tests. Keys above 100000 are its inserts; it updates and deletes
// keys of the initial rows, 1 to `initial`.
class writer {
 public:
  writer(std::string db, int initial) : db_(std::move(db)), initial_(initial) {
    thread_ = std::thread{[this] { run(); }};
  }
  writer(const writer&) = delete;
  auto operator=(const writer&) -> writer& = delete;
  ~writer() { stop(); }

  // Stops it and returns the number of transactions it committed.
  auto stop() -> int {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    return committed_;
  }

 private:
  auto run() -> void {
    auto conn = live_server().connect(db_);
    for (int k = 1; !stop_.load(); ++k) {
      const auto key = std::to_string((k * 7919) % initial_ + 1);
      switch (k % 3) {
        case 0:
          conn.exec("INSERT INTO items (id, name) VALUES (" + std::to_string(100000 + k) + ", 'w" + std::to_string(k) +
                    "')");
          break;
        case 1: conn.exec("UPDATE items SET name = 'u" + std::to_string(k) + "' WHERE id = " + key); break;
        default: conn.exec("DELETE FROM items WHERE id = " + key); break;
      }
      ++committed_;
      std::this_thread::sleep_for(2ms);
    }
  }

  std::string db_;
  int initial_;
  std::atomic<bool> stop_{false};
  int committed_ = 0;
  std::thread thread_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(replicant_tail, *utf::label("integration") * utf::precondition(binary_known))

BOOST_AUTO_TEST_CASE(prints_exact_lines_stops_cleanly_and_resumes_exactly_once) {
  auto& pg = live_server();
  scenario s;
  const auto slot = pg.unique_name("tail_slot");
  const auto checkpoint = s.dir.path() / "checkpoint";
  // A second slot made before the workload: it will re-send every transaction below, which the
  // checkpoint file must then filter (the server re-sends after a crash in the same way).
  const auto replay_slot = pg.unique_name("tail_replay");
  pg.sql("SELECT pg_create_logical_replication_slot('" + replay_slot + "', 'pgoutput')", s.db);

  std::vector<std::string> first_lines;
  {
    tail_process p{s.args(slot, checkpoint), s.dir.path() / "stderr1"};
    wait_until_streaming(p, s.db, slot);
    s.sql(
        "INSERT INTO items VALUES (1, 'plain', 12.50, ARRAY['a', 'b c', NULL], repeat('x', 5000), "
        "'{\"k\": [1, 2.5]}', '2024-05-01 12:00:00.25+00')");
    s.sql("BEGIN; INSERT INTO items (id) VALUES (2); INSERT INTO other VALUES (1); COMMIT");
    s.sql("UPDATE items SET price = 13 WHERE id = 1");  // big is TOASTed and unchanged: not sent
    s.sql("UPDATE items SET id = 3 WHERE id = 2");      // key change: the old key is sent
    s.sql("DELETE FROM items WHERE id = 3");
    s.sql("INSERT INTO other VALUES (2)");  // nothing published: nothing printed
    s.sql("INSERT INTO items (id, name, doc) VALUES (4, E'say \"hi\"\\n\\tgr\\u00fc\\u00df " + std::string{secret} +
          "', 'null')");
    first_lines = p.read_lines(6);
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
    BOOST_TEST(p.rest().empty(), "nothing after the last transaction");
  }
  const auto first = check_lines(first_lines);
  const std::vector<std::string> expected{
      R"({"op":"insert","schema":"public","table":"items","record":{"id":1,"name":"plain","price":"12.50","tags":["a","b c",null],"big":")" +
          big_value + R"(","doc":{"k": [1, 2.5]},"seen":"2024-05-01T12:00:00.25Z"}})",
      R"({"op":"insert","schema":"public","table":"items","record":{"id":2,"name":null,"price":null,"tags":null,"big":null,"doc":null,"seen":null}})",
      R"({"op":"update","schema":"public","table":"items","record":{"id":1,"name":"plain","price":"13.00","tags":["a","b c",null],"doc":{"k": [1, 2.5]},"seen":"2024-05-01T12:00:00.25Z"},"unchanged":["big"]})",
      R"({"op":"update","schema":"public","table":"items","record":{"id":3,"name":null,"price":null,"tags":null,"big":null,"doc":null,"seen":null},"old":{"id":2}})",
      R"({"op":"delete","schema":"public","table":"items","old":{"id":3}})",
      R"({"op":"insert","schema":"public","table":"items","record":{"id":4,"name":"say \"hi\"\n\tgrüß )" +
          std::string{secret} + R"(","price":null,"tags":null,"big":null,"doc":null,"seen":null}})",
  };
  BOOST_TEST(first.bodies == expected, boost::test_tools::per_element());
  BOOST_TEST(first.transactions == 6U);

  // The checkpoint holds the last commit LSN, in the documented format (docs/tail.md), and the slot
  // was acknowledged past it.
  BOOST_TEST(read_file(checkpoint) == "replicant-checkpoint 1\nslot " + slot + "\ncommit_lsn " + first.last_lsn + "\n");
  BOOST_TEST(stored_checkpoint(checkpoint, slot) == first.last_lsn);
  const auto confirmed =
      pg.scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'", s.db);
  BOOST_TEST(replicant::parse_lsn(confirmed).value() > replicant::parse_lsn(first.last_lsn).value());
  // Errors and notices never carry row values.
  BOOST_TEST(read_file(s.dir.path() / "stderr1").find(secret) == std::string::npos);

  // A checkpoint file belongs to its slot: another slot's is refused, not resumed from.
  {
    tail_process p{s.args(replay_slot, checkpoint), s.dir.path() / "stderr-mismatch"};
    BOOST_TEST(p.wait() == tail::exit_failure);
    BOOST_TEST(p.rest().empty(), "nothing was printed");
    const auto e = read_file(s.dir.path() / "stderr-mismatch");
    BOOST_TEST(e.find("--checkpoint-file failed") != std::string::npos, e);
    BOOST_TEST(e.find("[checkpoint_store_failed]") != std::string::npos, e);
    BOOST_TEST(e.find(replay_slot) == std::string::npos, "no slot name is printed");
    BOOST_TEST(e.find(slot) == std::string::npos);
    BOOST_TEST(stored_checkpoint(checkpoint, slot) == first.last_lsn, "the file was left as it was");
  }
  // The replay slot's own checkpoint file, at the same position.
  BOOST_TEST_REQUIRE(
      replicant::file_checkpoint_store{s.dir.path() / "replay-checkpoint"}
          .write(replicant::slot_name::make(replay_slot).value(), replicant::parse_lsn(first.last_lsn).value())
          .has_value());

  // While no tail runs, more transactions; a restart prints exactly them.
  s.sql("INSERT INTO items (id, name) VALUES (5, 'later')");
  s.sql("BEGIN; UPDATE items SET name = 'five' WHERE id = 5; INSERT INTO items (id) VALUES (6); COMMIT");
  const std::vector<std::string> expected_later{
      R"({"op":"insert","schema":"public","table":"items","record":{"id":5,"name":"later","price":null,"tags":null,"big":null,"doc":null,"seen":null}})",
      R"({"op":"update","schema":"public","table":"items","record":{"id":5,"name":"five","price":null,"tags":null,"big":null,"doc":null,"seen":null}})",
      R"({"op":"insert","schema":"public","table":"items","record":{"id":6,"name":null,"price":null,"tags":null,"big":null,"doc":null,"seen":null}})",
  };
  std::string second_last;
  {
    tail_process p{s.args(slot, checkpoint), s.dir.path() / "stderr2"};
    const auto second = check_lines(p.read_lines(3));
    BOOST_TEST(second.bodies == expected_later, boost::test_tools::per_element());
    BOOST_TEST(second.transactions == 2U);
    BOOST_TEST(replicant::parse_lsn(second.last_lsn).value() > replicant::parse_lsn(first.last_lsn).value());
    second_last = second.last_lsn;
    // Nothing else arrives: no transaction of the first run again.
    BOOST_TEST(!p.read_line(1500ms).has_value());
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
    BOOST_TEST(p.rest().empty());
    BOOST_TEST(stored_checkpoint(checkpoint, slot) == second_last);
  }

  // The replay slot sends every transaction since it was made; with the checkpoint of the first
  // run, exactly the later ones are printed.
  {
    tail_process p{s.args(replay_slot, s.dir.path() / "replay-checkpoint"), s.dir.path() / "stderr3"};
    const auto replayed = check_lines(p.read_lines(3));
    BOOST_TEST(replayed.bodies == expected_later, boost::test_tools::per_element());
    BOOST_TEST(replayed.last_lsn == second_last);
    BOOST_TEST(!p.read_line(1500ms).has_value());
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
    BOOST_TEST(stored_checkpoint(s.dir.path() / "replay-checkpoint", replay_slot) == second_last);
  }
}

BOOST_AUTO_TEST_CASE(prints_logical_messages_when_asked) {
  auto& pg = live_server();
  scenario s;
  const auto slot = pg.unique_name("tail_msg");
  auto args = s.args(slot, s.dir.path() / "checkpoint");
  args.emplace_back("--messages");
  tail_process p{args, s.dir.path() / "stderr"};
  wait_until_streaming(p, s.db, slot);
  s.sql("SELECT pg_logical_emit_message(false, 'loose', 'hello')");
  s.sql("BEGIN; INSERT INTO items (id) VALUES (1); SELECT pg_logical_emit_message(true, 'app', 'in txn'); COMMIT");
  const auto lines = p.read_lines(3);
  BOOST_TEST_REQUIRE(lines.size() == 3U);
  const std::regex loose{
      R"re(^\{"lsn":"[0-9A-F]+/[0-9A-F]+","op":"message","transactional":false,"prefix":"loose","content":"hello"\}$)re"};
  BOOST_TEST(std::regex_match(lines[0], loose), lines[0]);
  const auto txn = check_lines({lines[1], lines[2]});
  BOOST_TEST(txn.transactions == 1U);
  BOOST_TEST(
      txn.bodies[0] ==
      R"({"op":"insert","schema":"public","table":"items","record":{"id":1,"name":null,"price":null,"tags":null,"big":null,"doc":null,"seen":null}})");
  const std::regex in_txn{
      R"re(^\{"message_lsn":"[0-9A-F]+/[0-9A-F]+","op":"message","transactional":true,"prefix":"app","content":"in txn"\}$)re"};
  BOOST_TEST(std::regex_match(txn.bodies[1], in_txn), txn.bodies[1]);
  p.interrupt();
  BOOST_TEST(p.wait() == tail::exit_ok);
}

BOOST_AUTO_TEST_CASE(a_closed_output_ends_the_run_and_loses_nothing) {
  auto& pg = live_server();
  scenario s;
  const auto slot = pg.unique_name("tail_pipe");
  const auto checkpoint = s.dir.path() / "checkpoint";
  std::string first_lsn;
  {
    tail_process p{s.args(slot, checkpoint), s.dir.path() / "stderr1"};
    wait_until_streaming(p, s.db, slot);
    s.sql("INSERT INTO items (id) VALUES (1)");
    first_lsn = check_lines(p.read_lines(1)).last_lsn;
    p.close_output();
    s.sql("INSERT INTO items (id) VALUES (2)");
    BOOST_TEST(p.wait() == tail::exit_ok, "a reader that went away is a normal end");
  }
  BOOST_TEST(stored_checkpoint(checkpoint, slot) == first_lsn, "the unwritten transaction is not checkpointed");
  BOOST_TEST(read_file(s.dir.path() / "stderr1").find("the output was closed; stopped") != std::string::npos);
  tail_process p{s.args(slot, checkpoint), s.dir.path() / "stderr2"};
  const auto again = check_lines(p.read_lines(1));
  BOOST_TEST(
      again.bodies ==
          std::vector<std::string>{
              R"({"op":"insert","schema":"public","table":"items","record":{"id":2,"name":null,"price":null,"tags":null,"big":null,"doc":null,"seen":null}})"},
      boost::test_tools::per_element());
  p.interrupt();
  BOOST_TEST(p.wait() == tail::exit_ok);
  BOOST_TEST(p.rest().empty());
}

BOOST_AUTO_TEST_CASE(refuses_a_new_slot_without_go_forward_only) {
  auto& pg = live_server();
  scenario s;
  const auto slot = pg.unique_name("tail_new");
  const auto count = [&] {
    return pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'", s.db);
  };

  // No checkpoint and no start mode: the pipeline's guard refuses before it looks for the slot, and
  // the hint names both flags a new slot needs.
  tail_process without_create{{"--dsn", pg.dsn(s.db), "--slot", slot, "--publication", "pub"}, s.dir.path() / "e1"};
  BOOST_TEST(without_create.wait() == tail::exit_refused);
  const auto e1 = read_file(s.dir.path() / "e1");
  BOOST_TEST(e1.find("[go_forward_required]") != std::string::npos, e1);
  BOOST_TEST(e1.find("--create-slot") != std::string::npos, e1);
  BOOST_TEST(e1.find(slot) == std::string::npos, "the slot name is not repeated");

  // Going forward, but the slot does not exist and may not be created.
  tail_process without_create_forward{
      {"--dsn", pg.dsn(s.db), "--slot", slot, "--publication", "pub", "--go-forward-only"}, s.dir.path() / "e4"};
  BOOST_TEST(without_create_forward.wait() == tail::exit_refused);
  const auto e4 = read_file(s.dir.path() / "e4");
  BOOST_TEST(e4.find("[slot_missing]") != std::string::npos, e4);
  BOOST_TEST(e4.find("--create-slot") != std::string::npos, e4);
  BOOST_TEST(e4.find(slot) == std::string::npos);
  BOOST_TEST(count() == "0");

  tail_process without_go_forward{{"--dsn", pg.dsn(s.db), "--slot", slot, "--publication", "pub", "--create-slot"},
                                  s.dir.path() / "e2"};
  BOOST_TEST(without_go_forward.wait() == tail::exit_refused);
  const auto e2 = read_file(s.dir.path() / "e2");
  BOOST_TEST(e2.find("[go_forward_required]") != std::string::npos, e2);
  BOOST_TEST(e2.find("--go-forward-only") != std::string::npos, e2);
  BOOST_TEST(e2.find(slot) == std::string::npos);
  BOOST_TEST(count() == "0", "nothing was created");

  // A publication that does not exist stops the start too, without naming it.
  tail_process missing_pub{
      {"--dsn", pg.dsn(s.db), "--slot", slot, "--publication", "no_such_pub_q7", "--create-slot", "--go-forward-only"},
      s.dir.path() / "e3"};
  BOOST_TEST(missing_pub.wait() == tail::exit_failure);
  const auto e3 = read_file(s.dir.path() / "e3");
  BOOST_TEST(e3.find("[publication_missing]") != std::string::npos, e3);
  BOOST_TEST(e3.find("q7") == std::string::npos);
  BOOST_TEST(count() == "0");
}

BOOST_AUTO_TEST_CASE(survives_a_server_restart_without_losing_or_repeating) {
  auto& pg = live_server();
  scenario s;
  const auto slot = pg.unique_name("tail_restart");
  // No checkpoint file: the in-memory checkpoint is what bridges the reconnect.
  const std::vector<std::string> args{"--dsn",
                                      pg.dsn(s.db),
                                      "--slot",
                                      slot,
                                      "--publication",
                                      "pub",
                                      "--create-slot",
                                      "--go-forward-only",
                                      "--status-interval",
                                      "1"};
  std::string before_last;
  {
    tail_process p{args, s.dir.path() / "stderr1"};
    wait_until_streaming(p, s.db, slot);
    for (int id = 1; id <= 3; ++id) s.sql("INSERT INTO items (id) VALUES (" + std::to_string(id) + ")");
    const auto before = check_lines(p.read_lines(3));
    BOOST_TEST(before.bodies == (std::vector<std::string>{insert_line(1), insert_line(2), insert_line(3)}),
               boost::test_tools::per_element());
    before_last = before.last_lsn;

    // The server goes away under the running tail and comes back (PostgreSQL 16 and older may then
    // send acknowledged transactions again: the pipeline skips them by the checkpoint).
    pg.restart();
    for (int id = 4; id <= 6; ++id) s.sql("INSERT INTO items (id) VALUES (" + std::to_string(id) + ")");
    const auto after = check_lines(p.read_lines(3, 90s));
    BOOST_TEST(after.bodies == (std::vector<std::string>{insert_line(4), insert_line(5), insert_line(6)}),
               boost::test_tools::per_element());
    BOOST_TEST(replicant::parse_lsn(after.last_lsn).value() > replicant::parse_lsn(before_last).value());
    BOOST_TEST(!p.read_line(1500ms).has_value(), "nothing is printed twice");
    BOOST_TEST(p.running());
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
    BOOST_TEST(p.rest().empty());
    const auto e = read_file(s.dir.path() / "stderr1");
    BOOST_TEST(e.find("the connection ended; reconnecting") != std::string::npos, e);
    BOOST_TEST(e.find("reconnected; streaming after checkpoint " + before_last) != std::string::npos, e);
    BOOST_TEST(e.find("stopped; 6 transactions written") != std::string::npos, e);
  }

  // A new process has no checkpoint without a file: it starts only with --go-forward-only, and
  // then continues from what the slot has acknowledged, which is everything printed above.
  s.sql("INSERT INTO items (id) VALUES (7)");
  tail_process refused{{"--dsn", pg.dsn(s.db), "--slot", slot, "--publication", "pub"}, s.dir.path() / "stderr2"};
  BOOST_TEST(refused.wait() == tail::exit_refused);
  BOOST_TEST(read_file(s.dir.path() / "stderr2").find("[go_forward_required]") != std::string::npos);
  tail_process p{{"--dsn", pg.dsn(s.db), "--slot", slot, "--publication", "pub", "--go-forward-only"},
                 s.dir.path() / "stderr3"};
  const auto resumed = check_lines(p.read_lines(1));
  BOOST_TEST(resumed.bodies == (std::vector<std::string>{insert_line(7)}), boost::test_tools::per_element());
  BOOST_TEST(!p.read_line(1500ms).has_value());
  p.interrupt();
  BOOST_TEST(p.wait() == tail::exit_ok);
  BOOST_TEST(read_file(s.dir.path() / "stderr3").find("streaming from the slot's acknowledged position") !=
             std::string::npos);
}

namespace {

// Splits the text @p out into its lines.
auto lines_of(const std::string& out) -> std::vector<std::string> {
  std::vector<std::string> lines;
  std::istringstream in{out};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The slot's acknowledged position.
auto confirmed_flush(const std::string& db, const std::string& slot) -> replicant::lsn {
  const auto text =
      live_server().scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'", db);
  return replicant::parse_lsn(text).value();
}

}  // namespace

BOOST_AUTO_TEST_CASE(end_lsn_prints_what_committed_before_it_then_stops_with_it_acknowledged) {
  auto& pg = live_server();
  scenario s;
  const auto slot = pg.unique_name("tail_end");
  const auto checkpoint = s.dir.path() / "checkpoint";
  pg.sql("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')", s.db);
  s.sql("INSERT INTO items (id) VALUES (1)");
  s.sql("INSERT INTO items (id) VALUES (2)");
  const auto end_text = pg.scalar("SELECT pg_current_wal_lsn()", s.db);
  const auto end = replicant::parse_lsn(end_text).value();
  s.sql("INSERT INTO items (id) VALUES (3)");
  s.sql("INSERT INTO items (id) VALUES (4)");
  const std::vector<std::string> args{"--dsn",
                                      pg.dsn(s.db),
                                      "--slot",
                                      slot,
                                      "--publication",
                                      "pub",
                                      "--go-forward-only",
                                      "--checkpoint-file",
                                      checkpoint.string(),
                                      "--status-interval",
                                      "1"};

  // Exactly the two transactions committed before the end, then exit status 0 by itself, with
  // the end acknowledged: the third transaction arrived and was neither printed nor acknowledged.
  std::string first_last_lsn;
  {
    auto with_end = args;
    with_end.insert(with_end.end(), {"--end-lsn", end_text});
    tail_process p{with_end, s.dir.path() / "stderr1"};
    BOOST_TEST_REQUIRE(p.wait(60s) == tail::exit_ok);
    const auto out = check_lines(lines_of(p.rest()));
    BOOST_TEST(out.bodies == (std::vector<std::string>{insert_line(1), insert_line(2)}),
               boost::test_tools::per_element());
    first_last_lsn = out.last_lsn;
    BOOST_TEST(replicant::parse_lsn(out.last_lsn).value() <= end);
    BOOST_TEST(stored_checkpoint(checkpoint, slot) == out.last_lsn);
    BOOST_TEST(confirmed_flush(s.db, slot) >= end, "the end is acknowledged");
    const auto e = read_file(s.dir.path() / "stderr1");
    BOOST_TEST(e.find("reached --end-lsn; stopped; 2 transactions written") != std::string::npos, e);
  }

  // The same end again: nothing before it is left, the next transaction is past it: nothing is
  // printed, and it stops at once.
  {
    auto with_end = args;
    with_end.insert(with_end.end(), {"--end-lsn", end_text});
    tail_process p{with_end, s.dir.path() / "stderr2"};
    BOOST_TEST_REQUIRE(p.wait(60s) == tail::exit_ok);
    BOOST_TEST(p.rest().empty());
    BOOST_TEST(stored_checkpoint(checkpoint, slot) == first_last_lsn);
  }

  // The later rows are all there for the next run, exactly once.
  {
    tail_process p{args, s.dir.path() / "stderr3"};
    const auto rest = check_lines(p.read_lines(2));
    BOOST_TEST(rest.bodies == (std::vector<std::string>{insert_line(3), insert_line(4)}),
               boost::test_tools::per_element());
    BOOST_TEST(!p.read_line(1500ms).has_value(), "nothing more");
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
  }

  // An end that the server passes with nothing published after it: WAL of an unpublished table.
  // The run prints nothing, and stops once the idle position has passed the end.
  {
    const auto idle_end = pg.scalar("SELECT pg_current_wal_lsn()", s.db);
    s.sql("INSERT INTO other (id) VALUES (1)");
    auto with_end = args;
    with_end.insert(with_end.end(), {"--end-lsn", idle_end});
    tail_process p{with_end, s.dir.path() / "stderr4"};
    // More unpublished WAL while it runs: each write makes the server send a keepalive with its
    // position, which is what the idle position follows.
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    for (int i = 2; p.running() && std::chrono::steady_clock::now() < deadline; ++i) {
      s.sql("INSERT INTO other (id) VALUES (" + std::to_string(i) + ")");
      std::this_thread::sleep_for(300ms);
    }
    BOOST_TEST_REQUIRE(p.wait(5s) == tail::exit_ok, read_file(s.dir.path() / "stderr4"));
    BOOST_TEST(p.rest().empty());
    BOOST_TEST(confirmed_flush(s.db, slot) >= replicant::parse_lsn(idle_end).value());
  }
}

// --help lists every option with its default, from the binary itself.
BOOST_AUTO_TEST_CASE(help_lists_every_option_with_a_default) {
  replicant::test::temp_dir dir{"replicant-tail-test"};
  tail_process p{{"--help"}, dir.path() / "stderr"};
  BOOST_TEST_REQUIRE(p.wait() == tail::exit_ok);
  const auto help = lines_of(p.rest());
  for (const std::string option :
       {"--dsn", "--slot", "--publication", "--create-slot", "--go-forward-only", "--snapshot", "--progress-interval",
        "--checkpoint-file", "--proto-version", "--messages", "--status-interval", "--end-lsn"}) {
    const auto line = std::find_if(help.begin(), help.end(), [&](const std::string& l) {
      return l.rfind("  " + option + " ", 0) == 0 || l == "  " + option;
    });
    BOOST_TEST_REQUIRE((line != help.end()), option << " is listed");
    BOOST_TEST((line->find('[') != std::string::npos || line->find("REQUIRED") != std::string::npos),
               "a default: " << *line);
  }
}

BOOST_AUTO_TEST_CASE(refuses_malformed_names_value_free) {
  auto& pg = live_server();
  replicant::test::temp_dir dir{"replicant-tail-test"};
  const std::string bad_slot = "Secret-Slot-Name-z5";
  tail_process bad{{"--dsn", pg.dsn(), "--slot", bad_slot, "--publication", "pub"}, dir.path() / "e1"};
  BOOST_TEST(bad.wait() == tail::exit_refused);
  const auto e1 = read_file(dir.path() / "e1");
  BOOST_TEST(e1.find("[invalid_identifier]") != std::string::npos, e1);
  BOOST_TEST(e1.find("z5") == std::string::npos);
  BOOST_TEST(e1.find("Secret") == std::string::npos);

  tail_process bad_pub{{"--dsn", pg.dsn(), "--slot", "ok_slot", "--publication", "pub;drop-z6"}, dir.path() / "e2"};
  BOOST_TEST(bad_pub.wait() == tail::exit_refused);
  const auto e2 = read_file(dir.path() / "e2");
  BOOST_TEST(e2.find("[invalid_identifier]") != std::string::npos, e2);
  BOOST_TEST(e2.find("z6") == std::string::npos);

  // A connection string is never echoed either, even when it cannot be used.
  tail_process bad_dsn{
      {"--dsn", "host=/nonexistent-z8 password=hunter2-z8", "--slot", "ok_slot", "--publication", "pub"},
      dir.path() / "e3"};
  BOOST_TEST(bad_dsn.wait() == tail::exit_failure);
  const auto e3 = read_file(dir.path() / "e3");
  BOOST_TEST(e3.find("[connection_failed]") != std::string::npos, e3);
  BOOST_TEST(e3.find("z8") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(snapshot_prints_existing_rows_then_streams_without_gap_or_duplicate) {
  auto& pg = live_server();
  scenario s;
  constexpr int initial = 3000;
  s.sql(
      "INSERT INTO items (id, name, price, tags, doc) SELECT i, 'n' || i, i / 100.0, ARRAY['t' || i % 5], "
      "jsonb_build_object('k', i) FROM generate_series(1, " +
      std::to_string(initial) + ") AS i");
  s.sql("UPDATE items SET name = '" + std::string{secret} + "' WHERE id = 1");
  s.sql("ANALYZE items");  // the statistics the progress line's estimate comes from
  const auto slot = pg.unique_name("tail_snap");
  const auto checkpoint = s.dir.path() / "checkpoint";
  const std::vector<std::string> args{"--dsn",
                                      pg.dsn(s.db),
                                      "--slot",
                                      slot,
                                      "--publication",
                                      "pub",
                                      "--snapshot",
                                      "--checkpoint-file",
                                      checkpoint.string(),
                                      "--progress-interval",
                                      "1",
                                      "--status-interval",
                                      "1"};
  const auto err = s.dir.path() / "stderr1";

  std::vector<std::string> lines;
  {
    // The writer runs before, during and after the snapshot: its transactions must each show up
    // exactly once, either inside the snapshot's rows or as streamed lines after them.
    writer w{s.db, initial};
    std::this_thread::sleep_for(300ms);
    tail_process p{args, err};
    BOOST_TEST_REQUIRE(wait_for_text(err, "taking a snapshot at"));
    // Not reading for a while stalls the snapshot on a full pipe, so that it lasts long enough for
    // periodic progress lines (one per second here).
    std::this_thread::sleep_for(2500ms);
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    bool writer_stopped = false;
    while (std::chrono::steady_clock::now() < deadline) {
      auto line = p.read_line(1s);
      if (line) lines.push_back(std::move(*line));
      if (!writer_stopped && read_file(err).find("snapshot complete") != std::string::npos) {
        std::this_thread::sleep_for(500ms);  // a little more streaming after the hand-off
        BOOST_TEST(w.stop() > 0);
        writer_stopped = true;
        s.sql("INSERT INTO items (id, name) VALUES (999999, 'end')");
      }
      if (!lines.empty() && lines.back().find(R"("id":999999)") != std::string::npos) break;
    }
    BOOST_TEST_REQUIRE(writer_stopped);
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
    BOOST_TEST(p.rest().empty());
  }

  // Every line is one JSON object of the documented shape: nothing else reaches stdout.
  std::vector<row_event> events;
  for (const auto& line : lines) {
    const auto e = parse_row_event(line);
    BOOST_TEST_REQUIRE(e.has_value(), "not a row line: " << line.substr(0, 80));
    events.push_back(*e);
  }
  // The snapshot's rows come first, all at its consistent point; every streamed line after them
  // is at a later commit LSN.
  std::size_t snapshot_rows = 0;
  while (snapshot_rows < events.size() && events[snapshot_rows].op == "snapshot") ++snapshot_rows;
  BOOST_TEST_REQUIRE(snapshot_rows > 0U);
  BOOST_TEST(snapshot_rows < events.size());
  const auto consistent_point = replicant::parse_lsn(events.front().lsn).value();
  std::map<int, std::optional<std::string>> replay;
  for (std::size_t i = 0; i < snapshot_rows; ++i) {
    BOOST_TEST(events[i].lsn == events.front().lsn);
    BOOST_TEST(replay.emplace(events[i].id, events[i].name).second, "one snapshot line per row");
  }
  for (std::size_t i = snapshot_rows; i < events.size(); ++i) {
    const auto& e = events[i];
    BOOST_TEST(e.op != "snapshot");
    BOOST_TEST(replicant::parse_lsn(e.lsn).value() > consistent_point);
    // Applied on top of the snapshot, every change must find the state it expects: an insert of a
    // row already there would be a transaction shown twice, an update or delete of a row not there
    // one that was missed.
    if (e.op == "insert") {
      BOOST_TEST(replay.emplace(e.id, e.name).second, "insert of a row already present: " << e.id);
    } else if (e.op == "update") {
      BOOST_TEST(replay.count(e.id) == 1U, "update of a row not present: " << e.id);
      replay[e.id] = e.name;
    } else if (e.op == "delete") {
      BOOST_TEST(replay.erase(e.id) == 1U, "delete of a row not present: " << e.id);
    }
  }
  std::map<int, std::string> replayed;
  for (const auto& [id, name] : replay) replayed[id] = name.value_or("<null>");
  BOOST_TEST((replayed == source_rows(s.db)), "the snapshot plus the stream equal the source");

  // stderr: the announcement with the estimate, periodic progress lines, the completion with the
  // snapshot's row count; never a row value.
  const auto e = read_file(err);
  BOOST_TEST(e.find("taking a snapshot at " + events.front().lsn + " of 1 table, ~" + std::to_string(initial)) !=
                 std::string::npos,
             e);
  BOOST_TEST(count_lines_with(e, "replicant-tail: snapshot: ") >= 1U, e);
  static const std::regex progress{
      R"re(replicant-tail: snapshot: [0-9]+ (of ~[0-9]+ rows \([0-9]+%\)|rows \(more than the ~[0-9]+ estimated\)), [0-9]+ rows/s, ETA ([0-9hms]+|unknown))re"};
  BOOST_TEST(std::regex_search(e, progress), e);
  BOOST_TEST(e.find("snapshot complete: " + std::to_string(snapshot_rows) + " rows in ") != std::string::npos, e);
  BOOST_TEST(e.find("streaming after checkpoint " + events.front().lsn) != std::string::npos, e);
  BOOST_TEST(e.find(secret) == std::string::npos, "no row value on stderr");
  BOOST_TEST(e.find(slot) == std::string::npos, "no slot name on stderr");

  // The same command again resumes after the checkpoint: no second snapshot, only what is new.
  BOOST_TEST(stored_checkpoint(checkpoint, slot) == events.back().lsn);
  s.sql("INSERT INTO items (id, name) VALUES (1000000, 'again')");
  {
    tail_process p{args, s.dir.path() / "stderr2"};
    const auto again = p.read_lines(1);
    BOOST_TEST_REQUIRE(again.size() == 1U);
    const auto resumed = parse_row_event(again.front());
    BOOST_TEST_REQUIRE(resumed.has_value());
    BOOST_TEST(resumed->op == "insert");
    BOOST_TEST(resumed->id == 1000000);
    BOOST_TEST(!p.read_line(1500ms).has_value());
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
    const auto e2 = read_file(s.dir.path() / "stderr2");
    BOOST_TEST(e2.find("snapshot") == std::string::npos, e2);
    BOOST_TEST(e2.find("streaming after checkpoint " + events.back().lsn) != std::string::npos, e2);
  }
}

BOOST_AUTO_TEST_CASE(sigint_during_a_snapshot_stops_cleanly_and_the_next_start_says_what_to_do) {
  auto& pg = live_server();
  scenario s;
  constexpr int initial = 20000;
  s.sql("INSERT INTO items (id, name) SELECT i, 'n' || i FROM generate_series(1, " + std::to_string(initial) +
        ") AS i");
  s.sql("ANALYZE items");
  const auto slot = pg.unique_name("tail_snap_int");
  const std::vector<std::string> args{"--dsn",      pg.dsn(s.db),          "--slot", slot, "--publication", "pub",
                                      "--snapshot", "--progress-interval", "1"};
  const auto err = s.dir.path() / "stderr1";
  {
    tail_process p{args, err};
    BOOST_TEST_REQUIRE(wait_for_text(err, "taking a snapshot at"));
    // The snapshot is stalled on the full pipe; the stop request arrives in the middle of it.
    std::this_thread::sleep_for(500ms);
    p.interrupt();
    const auto out = p.rest();  // reading unblocks the sink, which then sees the stop
    BOOST_TEST(p.wait() == tail::exit_ok, "a stop on request");
    std::size_t written = 0;
    std::istringstream in{out};
    for (std::string line; std::getline(in, line); ++written) {
      const auto e = parse_row_event(line);
      BOOST_TEST_REQUIRE(e.has_value(), "not a row line: " << line.substr(0, 80));
      BOOST_TEST(e->op == "snapshot");
    }
    BOOST_TEST(written < static_cast<std::size_t>(initial), "stopped before the end");
    const auto e = read_file(err);
    BOOST_TEST(e.find("replicant-tail: stopped during the snapshot after " + std::to_string(written) + " of ~" +
                      std::to_string(initial) + " rows; the snapshot is incomplete") != std::string::npos,
               e);
    BOOST_TEST(e.find("drop the slot") != std::string::npos, e);
  }
  BOOST_TEST(pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'", s.db) == "1",
             "the slot stays, as the pipeline leaves it");

  // The next start cannot finish that snapshot: refused, with what to do.
  {
    tail_process p{args, s.dir.path() / "stderr2"};
    BOOST_TEST(p.wait() == tail::exit_refused);
    BOOST_TEST(p.rest().empty());
    const auto e = read_file(s.dir.path() / "stderr2");
    BOOST_TEST(e.find("[snapshot_incomplete]") != std::string::npos, e);
    BOOST_TEST(e.find("Drop the slot") != std::string::npos, e);
    BOOST_TEST(e.find(slot) == std::string::npos);
  }

  // Dropped, a new snapshot is complete.
  pg.sql("SELECT pg_drop_replication_slot('" + slot + "')", s.db);
  {
    tail_process p{args, s.dir.path() / "stderr3"};
    const auto rows = p.read_lines(static_cast<std::size_t>(initial), 60s);
    BOOST_TEST(rows.size() == static_cast<std::size_t>(initial));
    BOOST_TEST(wait_for_text(s.dir.path() / "stderr3", "snapshot complete: " + std::to_string(initial) + " rows"));
    BOOST_TEST(wait_for_text(s.dir.path() / "stderr3", "streaming after checkpoint"));
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
    BOOST_TEST(p.rest().empty());
    BOOST_TEST(read_file(s.dir.path() / "stderr3")
                   .find("stopped; " + std::to_string(initial) + " snapshot rows and 0 transactions written") !=
               std::string::npos);
  }

  // Its checkpoint was kept in memory only: the next --snapshot start cannot tell a completed
  // snapshot from an interrupted one, and --go-forward-only continues where the slot was
  // acknowledged.
  s.sql("INSERT INTO items (id, name) VALUES (-1, 'after')");
  {
    tail_process p{args, s.dir.path() / "stderr4"};
    BOOST_TEST(p.wait() == tail::exit_refused);
    BOOST_TEST(read_file(s.dir.path() / "stderr4").find("[snapshot_incomplete]") != std::string::npos);
  }
  {
    tail_process p{{"--dsn", pg.dsn(s.db), "--slot", slot, "--publication", "pub", "--go-forward-only"},
                   s.dir.path() / "stderr5"};
    const auto line = p.read_lines(1);
    BOOST_TEST_REQUIRE(line.size() == 1U);
    const auto e = parse_row_event(line.front());
    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(e->op == "insert");
    BOOST_TEST(e->id == -1);
    p.interrupt();
    BOOST_TEST(p.wait() == tail::exit_ok);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_tail_tests
