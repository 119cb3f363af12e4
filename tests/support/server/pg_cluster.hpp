// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SERVER_PG_CLUSTER_HPP
#define REPLICANT_TESTS_SUPPORT_SERVER_PG_CLUSTER_HPP

/// @file
/// The live PostgreSQL harness of the integration tests: a throwaway cluster per test program,
/// plus small RAII wrappers over libpq for the tests to talk to it.
///
/// Environment (ctest sets the first two for every `replicant.integration.<name>.pg<N>` entry):
///
/// | variable                   | meaning                                                                |
/// |----------------------------|------------------------------------------------------------------------|
/// | `REPLICANT_PG_MAJOR`       | the major version under test; the binaries must report exactly it      |
/// | `REPLICANT_PG_BINDIR`      | directory with `initdb` and `postgres` (default with a major: the      |
/// |                            | provisioning cache, `<source>/.cache/postgresql/<major>/bin`)          |
/// | `REPLICANT_REQUIRE_ALL_PG` | `1`: a missing server is a failure. Otherwise the program exits 77,    |
/// |                            | which ctest reports as "skipped"                                       |
/// | `REPLICANT_PG_USER`        | the account the server runs as when the tests run as root (PostgreSQL  |
/// |                            | refuses root); default `postgres`. Ignored when not root               |
/// | `REPLICANT_PG_TMPDIR`      | where cluster directories are made (default `$TMPDIR`, then `/tmp`).   |
/// |                            | Keep it short: the unix socket path must fit in 107 bytes              |
/// | `REPLICANT_PG_KEEP`        | `1`: keep the cluster directory after the run (the server is still     |
/// |                            | stopped), to read its `server.log`                                     |
///
/// A program that tests TLS asks for it in code (live_tls_server_fixture, pg_cluster_options::tls),
/// never through the environment, so that no other program's server changes with it. Its
/// certificates are made with the `openssl` program (Debian package `openssl`).
///
/// Nothing here prints row values. Errors carry SQLSTATEs, paths and ports; the server's own log is
/// shown only when the server fails to start, and only its tail.

#include <libpq-fe.h>

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::test {

/**
 * A statement or connection failed.
 *
 * `what()` names the operation and the SQLSTATE only, because a server message can quote a value
 * (`invalid input syntax for type integer: "..."`) and test output is a log like any other. The
 * server's primary message is kept aside in server_message() for a test that wants to look at it.
 *
 * @par Thread safety
 * A value type.
 */
class pg_error : public std::runtime_error {
 public:
  /// @param what value-free description. @param sqlstate five characters, or empty when there is
  /// none (a connection failure). @param server_message the server's or libpq's primary message.
  pg_error(const std::string& what, std::string sqlstate, std::string server_message);

  /// The five-character SQLSTATE, e.g. `"42710"`; empty for a failure without one. Never throws.
  [[nodiscard]] auto sqlstate() const noexcept -> const std::string& { return sqlstate_; }

  /// The primary message as PostgreSQL or libpq wrote it. May contain values: do not log it.
  [[nodiscard]] auto server_message() const noexcept -> const std::string& { return server_message_; }

 private:
  std::string sqlstate_;
  std::string server_message_;
};

/// One result row as text; SQL NULL is `std::nullopt`.
using row = std::vector<std::optional<std::string>>;

/// All rows of a result, in order.
using rows = std::vector<row>;

/**
 * Owns a `PGresult`.
 *
 * @par Thread safety
 * Distinct objects are safe; a shared object is safe to read.
 */
class pg_result {
 public:
  /// Takes ownership of @p result (may be null). Never throws.
  explicit pg_result(PGresult* result) noexcept : result_(result) {}
  /// Moves ownership; @p other is left empty. Never throws.
  pg_result(pg_result&& other) noexcept;
  /// Frees the current result and takes @p other's. Never throws.
  auto operator=(pg_result&& other) noexcept -> pg_result&;
  pg_result(const pg_result&) = delete;
  auto operator=(const pg_result&) -> pg_result& = delete;
  /// `PQclear`. Never throws.
  ~pg_result();

  /// libpq's status; `PGRES_FATAL_ERROR` for a null result. Never throws.
  [[nodiscard]] auto status() const noexcept -> ExecStatusType;

  /// True for `PGRES_COMMAND_OK` and `PGRES_TUPLES_OK`. Never throws.
  [[nodiscard]] auto ok() const noexcept -> bool;

  /// The SQLSTATE of a failed result, empty otherwise.
  [[nodiscard]] auto sqlstate() const -> std::string;

  /// The primary error message of a failed result, empty otherwise. May contain values.
  [[nodiscard]] auto error_message() const -> std::string;

  /// Number of rows. Never throws.
  [[nodiscard]] auto row_count() const noexcept -> int;

  /// Number of columns. Never throws.
  [[nodiscard]] auto column_count() const noexcept -> int;

  /// Name of column @p column (0-based). @throws std::out_of_range for a bad index.
  [[nodiscard]] auto column_name(int column) const -> std::string;

  /// Type OID of column @p column, e.g. 23 for int4, 20 for int8, 25 for text. Never throws;
  /// 0 for a bad index.
  [[nodiscard]] auto column_type(int column) const noexcept -> Oid;

  /// The text of a field, `std::nullopt` for NULL. @throws std::out_of_range for a bad index.
  [[nodiscard]] auto value(int row_index, int column) const -> std::optional<std::string>;

  /// Every row as text.
  [[nodiscard]] auto all_rows() const -> rows;

  /// The underlying handle, still owned by this object. Never throws.
  [[nodiscard]] auto native() const noexcept -> PGresult* { return result_; }

 private:
  PGresult* result_ = nullptr;
};

/**
 * Owns a `PGconn`. Statements go through `PQexec`, the simple query protocol, which is the only
 * one a `replication=database` connection accepts (PROTOCOL.md section 1.1).
 *
 * @par Thread safety
 * One thread at a time per object (libpq's rule for a connection).
 */
class pg_connection {
 public:
  /// Connects with the keyword/value string @p dsn. @throws pg_error when the connection fails.
  explicit pg_connection(const std::string& dsn);
  /// Moves ownership; @p other is left without a connection. Never throws.
  pg_connection(pg_connection&& other) noexcept;
  /// Closes the current connection and takes @p other's. Never throws.
  auto operator=(pg_connection&& other) noexcept -> pg_connection&;
  pg_connection(const pg_connection&) = delete;
  auto operator=(const pg_connection&) -> pg_connection& = delete;
  /// `PQfinish`. Never throws.
  ~pg_connection();

  /// Runs @p statement and returns its result. @throws pg_error when it fails. Not
  /// `[[nodiscard]]`: for DDL and DML the absence of an exception is the answer.
  auto exec(std::string_view statement) -> pg_result;

  /// Runs @p statement and returns its result, failed or not; for tests that expect an error.
  [[nodiscard]] auto try_exec(std::string_view statement) -> pg_result;

  /// `PQserverVersion`, e.g. 180004. Never throws.
  [[nodiscard]] auto server_version() const noexcept -> int;

  /// @p identifier quoted for SQL (`PQescapeIdentifier`).
  [[nodiscard]] auto quote_identifier(std::string_view identifier) const -> std::string;

  /// @p text as a quoted SQL literal (`PQescapeLiteral`). Not for replication commands, whose
  /// grammar has no `E'...'` strings (PROTOCOL.md section 1.2).
  [[nodiscard]] auto quote_literal(std::string_view text) const -> std::string;

  /// The underlying handle, still owned by this object. Never throws.
  [[nodiscard]] auto native() const noexcept -> PGconn* { return conn_; }

 private:
  PGconn* conn_ = nullptr;
};

/**
 * Which server binaries to run, and where, for a pg_cluster.
 */
struct pg_cluster_options {
  /// The major version expected; the binaries must report it. 0 accepts whatever they are.
  int major = 0;
  /// Directory holding `initdb` and `postgres`.
  std::filesystem::path bindir;
  /// The account the server runs as when this process is root.
  std::string os_user = "postgres";
  /// Parent of the cluster's temporary directory.
  std::filesystem::path temp_root = "/tmp";
  /// Keep the directory after teardown (the server is stopped either way).
  bool keep_directory = false;
  /// Serve TLS (`ssl = on`) with certificates made for this cluster alone (see tls_files). Off by
  /// default, and set by no environment variable: only a program that asks for it gets it (see
  /// live_tls_server_fixture), so every other test talks to a plain server.
  bool tls = false;

  /// The options the environment variables of this file's table describe. Never throws except
  /// std::bad_alloc.
  [[nodiscard]] static auto from_environment() -> pg_cluster_options;

  /// Whether these options name a bindir holding executable `initdb` and `postgres`. Never throws.
  [[nodiscard]] auto binaries_present() const noexcept -> bool;
};

/**
 * The throwaway certificates of a TLS cluster (pg_cluster_options::tls), made with the `openssl`
 * program when the cluster is created, in its directory's `tls/`, and removed with it.
 *
 * Two certificate authorities, each valid for a few days and trusted by nothing else: one signed
 * the server's certificate, the other signed nothing this server presents, for a client that
 * trusts the wrong authority. The server's certificate names `localhost` and `127.0.0.1` (subject
 * alternative names), so that `sslmode=verify-full` accepts the harness's DSNs, which connect to
 * 127.0.0.1, and refuses any other host name. Its key belongs to the account the server runs as,
 * mode 0600, as PostgreSQL demands of a key file.
 */
struct tls_files {
  /// The authority that signed the server's certificate: what `sslrootcert` names to trust it.
  std::filesystem::path root_certificate;
  /// An authority that signed nothing of this server's: trusting it alone, verification fails.
  std::filesystem::path other_root_certificate;
  /// The server's certificate (`ssl_cert_file`).
  std::filesystem::path server_certificate;
  /// The server's private key (`ssl_key_file`).
  std::filesystem::path server_key;
  /// A client certificate (`CN=replicant`, for TLS clients only), signed by the first authority.
  std::filesystem::path client_certificate;
  /// Its private key.
  std::filesystem::path client_key;
};

/**
 * Makes a set of tls_files in @p dir (created if need be) with the `openssl` program, as this
 * process's account: for a server of another kind that a test runs over TLS
 * (support/server/nats_cluster.hpp).
 * @throws std::runtime_error when openssl is missing or fails.
 */
[[nodiscard]] auto make_tls_files(const std::filesystem::path& dir) -> tls_files;

/**
 * How pg_cluster::make_standby() sets up a physical standby.
 */
struct standby_options {
  /// The physical replication slot on the primary that the standby streams through
  /// (`primary_slot_name`), also its `application_name`. Empty: a fresh name from the primary's
  /// unique_name(). The slot reserves WAL from the moment it is made, so nothing the base backup
  /// needs can be removed before the standby has it.
  std::string slot;
  /// `hot_standby_feedback`: the standby tells the primary which rows its queries and its logical
  /// slots still need, so that vacuum on the primary leaves them alone.
  bool hot_standby_feedback = true;
  /// `sync_replication_slots` (PostgreSQL 17+): keep synced copies of the primary's failover slots.
  /// @throws std::invalid_argument from make_standby() on a server without the setting.
  bool sync_replication_slots = false;
  /// The database `primary_conninfo` names. Slot synchronisation needs one; streaming ignores it.
  std::string database = "postgres";
};

/**
 * A throwaway PostgreSQL cluster, running for as long as the object lives.
 *
 * The constructor runs `initdb --no-sync` in a fresh temporary directory, configures the server for
 * logical replication tests (`wal_level=logical`, 32 WAL senders and slots, `fsync=off`, TCP on a
 * free loopback port, the unix socket in the temporary directory, and `output_plugin_libraries`
 * where the server has that setting) and starts it. When this process is root the server runs as
 * an unprivileged account, because `postgres` refuses root. With pg_cluster_options::tls it also
 * makes a certificate authority and a server certificate (tls_files) and serves TLS beside plain
 * connections: dsn() is unchanged (libpq's default `sslmode=prefer` then uses TLS without
 * verifying), and tls_dsn() verifies the server in full.
 *
 * The postmaster is a direct child of this process, started with a parent-death signal (Linux), so
 * it goes down with the test program however the program ends, including a crash or SIGKILL. The
 * destructor stops it immediately and removes the directory; a directory left by a killed program
 * is removed by the next harness that starts in the same place.
 *
 * `fsync=off` keeps the tests fast and leaves crash tests valid: crash() stops only the server, so
 * everything it wrote is still in the operating system's cache.
 *
 * @par Example
 * @code
 * replicant::test::pg_cluster pg;                 // the version named by the environment
 * pg.create_database("orders");
 * pg.sql("CREATE TABLE t (id int primary key)", "orders");
 * replicant::test::pg_connection repl{pg.replication_dsn("orders")};
 * auto id = repl.exec("IDENTIFY_SYSTEM");
 * @endcode
 *
 * @par Thread safety
 * Create it from the main thread: the parent-death signal fires when the thread that started the
 * server exits. sql() and scalar() may be called from several threads at once; starting,
 * stopping and reconfiguring the server may not overlap with anything else.
 */
class pg_cluster {
 public:
  /// Creates and starts the cluster. @throws std::runtime_error, with the tail of the server log
  /// on a failed start; nothing is left behind.
  explicit pg_cluster(pg_cluster_options options = pg_cluster_options::from_environment());
  pg_cluster(const pg_cluster&) = delete;
  auto operator=(const pg_cluster&) -> pg_cluster& = delete;

  /// Stops the server immediately and removes the directory. Never throws.
  ~pg_cluster();

  /// Starts a stopped server and waits until it accepts connections (after crash recovery, if
  /// any). @throws std::runtime_error when it does not come up; the log tail is printed.
  void start();

  /// Fast shutdown (`pg_ctl stop -m fast`), waiting for the postmaster to exit. No-op when stopped.
  void stop();

  /// stop() then start(). Data and settings survive; the port and socket stay the same.
  void restart();

  /// Immediate shutdown (`pg_ctl stop -m immediate`): no checkpoint, so the next start() runs
  /// crash recovery. No-op when stopped.
  void crash();

  /// Whether the postmaster is running. Never throws.
  [[nodiscard]] auto running() noexcept -> bool;

  /// `ALTER SYSTEM SET name = 'value'`. Takes effect after reload() or restart(), depending on
  /// the setting's context. @throws pg_error, e.g. for an unknown name.
  void set(std::string_view name, std::string_view value);

  /// `ALTER SYSTEM RESET name`. @throws pg_error.
  void reset(std::string_view name);

  /// `pg_reload_conf()`, then waits until new connections see the reloaded configuration.
  /// @throws std::runtime_error after 10 s.
  void reload();

  /**
   * Runs @p statement in a session of its own on @p database; every row as text. @throws pg_error.
   *
   * The session is a pooled connection reset with `DISCARD ALL`, so it starts as a new one would:
   * a backend per statement cost the server a fork and a catalog warm-up, half of the live tests'
   * CPU when they poll. A connection left inside a transaction or failed is closed, not pooled;
   * statements that touch databases, replication origins, slots or exported snapshots get a
   * connection of their own, closed after them, because `DISCARD ALL` cannot undo those. The pool
   * is emptied by start(), stop(), restart(), crash(), reload() and promote(). Safe to call from
   * several threads at once.
   */
  auto sql(std::string_view statement, std::string_view database = "postgres") -> rows;

  /// The single value of a one-row, one-column query. @throws std::runtime_error for another
  /// shape or NULL, pg_error for a failed statement.
  [[nodiscard]] auto scalar(std::string_view statement, std::string_view database = "postgres") -> std::string;

  /// `CREATE DATABASE`. @throws pg_error.
  void create_database(std::string_view name);

  /// A name no earlier call returned, `<prefix>_<n>`, for databases, slots and tables: tests of one
  /// program share the server and stay apart by name. @p prefix must be a plain lower-case
  /// identifier so that the result needs no quoting.
  [[nodiscard]] auto unique_name(std::string_view prefix) -> std::string;

  /// Keyword/value DSN for a normal connection to @p database over loopback TCP.
  [[nodiscard]] auto dsn(std::string_view database = "postgres") const -> std::string;

  /// Like dsn(), plus `replication=database`: a logical walsender connection.
  [[nodiscard]] auto replication_dsn(std::string_view database = "postgres") const -> std::string;

  /// Keyword/value DSN for a normal connection to @p database over the unix socket.
  [[nodiscard]] auto socket_dsn(std::string_view database = "postgres") const -> std::string;

  /// Like dsn(), plus `sslmode=verify-full` and `sslrootcert=` the authority that signed this
  /// server's certificate: TLS, and a server proven to be this one. @throws std::logic_error for a
  /// cluster made without pg_cluster_options::tls.
  [[nodiscard]] auto tls_dsn(std::string_view database = "postgres") const -> std::string;

  /// The certificates of a TLS cluster; `std::nullopt` for a plain one. Never throws.
  [[nodiscard]] auto tls() const noexcept -> const std::optional<tls_files>& { return tls_; }

  /// Opens a normal connection. @throws pg_error.
  [[nodiscard]] auto connect(std::string_view database = "postgres") const -> pg_connection;

  /// Opens a `replication=database` connection. @throws pg_error.
  [[nodiscard]] auto connect_replication(std::string_view database = "postgres") const -> pg_connection;

  /// The major version of the running binaries, e.g. 17. Never throws.
  [[nodiscard]] auto major() const noexcept -> int { return major_; }

  /// The loopback TCP port. Never throws.
  [[nodiscard]] auto port() const noexcept -> int { return port_; }

  /// The superuser the DSNs connect as. Never throws.
  [[nodiscard]] auto user() const noexcept -> const std::string& { return superuser_; }

  /// The temporary directory: `data/`, `server.log`, the unix socket. Never throws.
  [[nodiscard]] auto directory() const noexcept -> const std::filesystem::path& { return dir_; }

  /// Whether the server binary knows the configuration parameter @p name (from
  /// `postgres --describe-config`). Never throws.
  [[nodiscard]] auto has_setting(std::string_view name) const noexcept -> bool;

  /// The whole server log so far, for a test that checks what the server reported. It may contain
  /// test data: search it, do not print it.
  [[nodiscard]] auto server_log() const -> std::string;

  /// The postmaster's process id, or 0 when stopped. Never throws.
  [[nodiscard]] auto postmaster_pid() const noexcept -> pid_t { return postmaster_; }

  /**
   * Starts a physical standby of this running cluster and returns once it accepts read-only
   * connections.
   *
   * It is made the way `pg_basebackup -R` would make it, with nothing but the `postgres` binary
   * and SQL (the provisioned 16+ builds ship no client programs): a physical slot on this server,
   * `pg_backup_start`, a copy of the data directory without the files a base backup leaves out,
   * `pg_backup_stop`'s label as `backup_label`, then `standby.signal`, `primary_conninfo` and
   * `primary_slot_name`. The standby streams from this server over loopback TCP, and is a
   * pg_cluster of its own: its own directory, port, socket and log, the same server binaries,
   * stopped and removed (with its slot on this server, if that server still runs) when the
   * returned object is destroyed. A fresh cluster takes about a second.
   *
   * @throws std::runtime_error when the backup or the start fails, pg_error for a failed
   * statement on this server, std::invalid_argument for an option this server cannot honour.
   */
  [[nodiscard]] auto make_standby(standby_options options = {}) -> std::unique_ptr<pg_cluster>;

  /**
   * Waits until @p standby has replayed everything this server had flushed when the call began.
   * @throws std::runtime_error after @p timeout.
   */
  void wait_for_replay(pg_cluster& standby, std::chrono::milliseconds timeout = std::chrono::seconds(30));

  /// `pg_promote()`: ends recovery on this standby and waits until it accepts writes (at most a
  /// minute). @throws std::runtime_error when it was no standby or did not finish promoting.
  void promote();

  /// Whether this cluster was made by make_standby() and has not been promoted. Never throws.
  [[nodiscard]] auto is_standby() const noexcept -> bool { return standby_; }

  /// The physical slot on the primary this standby streams through; empty for a primary. Never throws.
  [[nodiscard]] auto primary_slot() const noexcept -> const std::string& { return primary_slot_; }

 private:
  struct standby_of {
    const pg_cluster& primary;
    const standby_options& options;
  };
  // make_standby()'s constructor: the base backup, the standby settings, the start.
  explicit pg_cluster(const standby_of& of);
  void create_standby(const standby_of& of);

  void create();
  void make_directory();
  void make_certificates();
  void start_on_free_port();
  void start_once(bool& port_clash);
  void wait_for_exit(int signal, int timeout_ms) noexcept;
  void destroy() noexcept;
  [[nodiscard]] auto log_path() const -> std::filesystem::path;
  // sql()'s session pool.
  auto exec_in_session(std::string_view statement, std::string_view database) -> pg_result;
  auto borrow(std::string_view database) -> std::optional<pg_connection>;
  void give_back(std::string_view database, pg_connection conn) noexcept;
  void forget_sessions() noexcept;

  pg_cluster_options options_;
  int major_ = 0;
  int port_ = 0;
  std::string superuser_ = "postgres";
  std::filesystem::path dir_;
  int lock_fd_ = -1;
  bool drop_privileges_ = false;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  pid_t postmaster_ = 0;
  std::set<std::string, std::less<>> settings_;
  std::uint64_t names_issued_ = 0;
  bool standby_ = false;
  std::string primary_slot_;  // with primary_dsn_: dropped on the primary by the destructor
  std::string primary_dsn_;
  std::optional<tls_files> tls_;
  std::mutex idle_mutex_;
  std::vector<std::pair<std::string, pg_connection>> idle_;  // (database, idle session)
};

/// How many times @p pg's log says it dropped a walsender for silence (a client that did not answer
/// within wal_sender_timeout): what a test counts before and after an outage the connection must
/// ride out by answering the server. Only counts are taken from the log, which may hold test data.
[[nodiscard]] inline auto walsender_timeouts(const pg_cluster& pg) -> std::size_t {
  constexpr std::string_view message = "due to replication timeout";
  const auto log = pg.server_log();
  std::size_t n = 0;
  for (auto at = log.find(message); at != std::string::npos; at = log.find(message, at + 1)) ++n;
  return n;
}

/**
 * A server setting changed for as long as the guard lives: set() at construction, reset() and
 * reload() at destruction, so that a test case that fails half-way still leaves a program's shared
 * server as the next case expects it. A setting that takes effect only at a restart is the
 * caller's to restart for, both ways.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class setting_guard {
 public:
  /// `ALTER SYSTEM SET` @p name to @p value on @p server. @throws pg_error.
  setting_guard(pg_cluster& server, std::string name, std::string_view value)
      : server_(server), name_(std::move(name)) {
    server_.set(name_, value);
  }
  setting_guard(const setting_guard&) = delete;
  auto operator=(const setting_guard&) -> setting_guard& = delete;
  /// Resets the setting and reloads; a failure to (a server that is down) is ignored.
  ~setting_guard() {
    try {
      server_.reset(name_);
      if (server_.running()) server_.reload();
    } catch (...) {  // NOLINT(bugprone-empty-catch): the server is gone, nothing is left to restore
    }
  }

 private:
  pg_cluster& server_;
  std::string name_;
};

/**
 * The process-wide cluster of a test program, created on first use.
 *
 * One server per test program keeps a run on two cores fast; tests share it and stay isolated by
 * their own database and slot names (unique_name()). When the binaries are missing it does not
 * return: it exits 77 (ctest: skipped), or throws if `REPLICANT_REQUIRE_ALL_PG=1`.
 *
 * @throws std::runtime_error when the server cannot be created.
 * @par Thread safety
 * Call it first from the main thread (see pg_cluster).
 */
[[nodiscard]] auto live_server() -> pg_cluster&;

/**
 * Boost.Test global fixture of the live test programs (tests/main/live.cpp declares it, once for
 * every suite of the program).
 *
 * Before any test runs it decides skip-or-fail for missing binaries (see live_server()) and
 * installs SIGINT/SIGTERM handlers that shut the server down. After the last test it stops the
 * server and removes its directory, even when tests failed. The server itself still starts lazily,
 * on the first live_server() call.
 */
struct live_server_fixture {
  /// Skip-or-fail check and signal handlers. Exits 77 when skipping; @throws std::runtime_error
  /// when `REPLICANT_REQUIRE_ALL_PG=1` and the binaries are missing.
  live_server_fixture();
  /// Stops the server and removes its directory. Never throws.
  ~live_server_fixture();
  live_server_fixture(const live_server_fixture&) = delete;
  auto operator=(const live_server_fixture&) -> live_server_fixture& = delete;
};

/**
 * Boost.Test fixture of a live test suite whose server serves TLS:
 * `BOOST_AUTO_TEST_SUITE(tls_tests, *boost::unit_test::fixture<replicant::test::live_tls_server_fixture>())`.
 *
 * The server live_server() then starts is made with pg_cluster_options::tls (its certificates:
 * pg_cluster::tls()). A process runs one file's suite, so the other suites keep their plain server.
 */
struct live_tls_server_fixture {
  /// Asks live_server() for a TLS server. @throws std::logic_error when live_server() already
  /// started a plain one.
  live_tls_server_fixture();
};

/**
 * A reloadable server setting changed for a scope: set and reloaded on construction, reset and
 * reloaded on destruction, also when the test fails halfway, so that the next test of the program
 * finds the server as the harness made it.
 *
 * @par Example
 * @code
 * scoped_setting keep{f.pg, "max_slot_wal_keep_size", "1MB"};
 * @endcode
 */
class scoped_setting {
 public:
  /// `ALTER SYSTEM SET name = value`, then reload(). @throws pg_error, std::runtime_error.
  scoped_setting(pg_cluster& pg, std::string name, std::string_view value) : pg_{pg}, name_{std::move(name)} {
    pg_.set(name_, value);
    pg_.reload();
  }
  /// `ALTER SYSTEM RESET name`, then reload(); a failure there is swallowed (a destructor).
  ~scoped_setting() {
    try {
      pg_.reset(name_);
      pg_.reload();
    } catch (...) {
    }
  }
  scoped_setting(const scoped_setting&) = delete;
  auto operator=(const scoped_setting&) -> scoped_setting& = delete;

 private:
  pg_cluster& pg_;
  std::string name_;
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SERVER_PG_CLUSTER_HPP
