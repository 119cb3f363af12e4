// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SERVER_NATS_CLUSTER_HPP
#define REPLICANT_TESTS_SUPPORT_SERVER_NATS_CLUSTER_HPP

/// @file
/// The live NATS harness of the JetStream tests: a throwaway three-node JetStream cluster on
/// loopback, started the way pg_cluster starts PostgreSQL (free ports, data in a temporary
/// directory, servers that die with the test program), plus a small client over nats.c for the
/// tests to create streams and read them back. Header-only, so that only the test programs that
/// use it link nats.c (Debian's libnats-dev); the servers are Debian's nats-server.
///
/// Environment:
///
/// | variable                   | meaning                                                                  |
/// |----------------------------|--------------------------------------------------------------------------|
/// | `REPLICANT_NATS_SERVER`    | the nats-server binary (default: `nats-server` in /usr/bin, /usr/sbin)   |
/// | `REPLICANT_REQUIRE_ALL_PG` | `1`: a missing nats-server is a failure, as a missing PostgreSQL is;     |
/// |                            | otherwise the program exits 77 (ctest: skipped)                          |
/// | `REPLICANT_NATS_KEEP`      | `1`: keep the cluster's directory (configurations, logs, stores)         |
///
/// Two accounts' worth of users share the global account: `replicant` may do anything, and
/// `restricted` may not publish under the subject prefix `restricted.` (the permission fault).
///
/// A cluster made with nats_cluster_options serves TLS only (certificates made for it with the
/// `openssl` program, pg_cluster.hpp's make_tls_files(), optionally requiring a client certificate)
/// and authenticates by NKey, by token or in operator mode (JWTs and a credentials file) instead of
/// passwords: what a real deployment asks of replicant-jetstream. Its NKeys and JWTs are made with
/// `openssl` too (support/server/nats_credentials.hpp).

#include "support/common/required.hpp"
#include "support/server/nats_credentials.hpp"
#include "support/server/pg_cluster.hpp"

#include <nats/nats.h>
#include <replicant/core/lsn.hpp>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace replicant::test {

namespace nats_detail {

// A loopback port nobody listens on right now (the server may lose it before it binds: start()
// then fails, and the harness says so).
inline auto free_port() -> int {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::system_error{errno, std::generic_category(), "nats_cluster: socket"};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  // sockaddr_in to sockaddr is the socket API's own pun.
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::system_error{errno, std::generic_category(), "nats_cluster: no free loopback port"};
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Whether something accepts TCP connections on the loopback port.
inline auto accepting(int port) -> bool {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

inline auto env(const char* name) -> std::optional<std::string> {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string{v};
}

inline auto wait_for(const std::function<bool()>& cond, std::chrono::milliseconds timeout) -> bool {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (cond()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace nats_detail

/// How a nats_cluster's clients prove who they are.
enum class nats_auth {
  /// Users `replicant` and `restricted`, each with its name for a password, in the URLs.
  passwords,
  /// One NKey user (nats_cluster::nkey()); another NKey (nats_cluster::stranger()) is not one.
  nkeys,
  /// A token (nats_cluster::token_file()); another (nats_cluster::wrong_token_file()) is not it.
  token,
  /// Operator mode: the servers trust an operator, know its accounts from their JWTs (a memory
  /// resolver, preloaded), and admit a user by a JWT its account signed and the seed of its NKey,
  /// together in a credentials file (nats_cluster::credentials()). A user of an account the servers
  /// do not know (nats_cluster::stranger_credentials()), or a user's JWT with another user's seed
  /// (nats_cluster::mismatched_credentials()), is refused.
  operator_jwt,
};

/// What a nats_cluster asks of its clients.
struct nats_cluster_options {
  /// TLS only (nats_cluster::tls()): a client that does not speak TLS, or that trusts another
  /// authority, is refused.
  bool tls = false;
  /// With tls: a client must present a certificate signed by the cluster's authority.
  bool client_certificates = false;
  /// How clients authenticate.
  nats_auth auth = nats_auth::passwords;
};

/// Sets @p opts to the servers of @p urls, a comma-separated list (natsOptions_SetURL would take the
/// list for one URL).
[[nodiscard]] inline auto set_nats_servers(natsOptions* opts, const std::string& urls) -> natsStatus {
  std::vector<std::string> list;
  std::string::size_type start = 0;
  for (auto comma = urls.find(','); comma != std::string::npos; comma = urls.find(',', start)) {
    list.push_back(urls.substr(start, comma - start));
    start = comma + 1;
  }
  list.push_back(urls.substr(start));
  std::vector<const char*> pointers;
  for (const auto& u : list) pointers.push_back(u.c_str());
  return natsOptions_SetServers(opts, pointers.data(), static_cast<int>(pointers.size()));
}

/// The nats-server binary to run: `REPLICANT_NATS_SERVER`, or Debian's, or nothing.
[[nodiscard]] inline auto nats_server_binary() -> std::optional<std::filesystem::path> {
  if (auto v = nats_detail::env("REPLICANT_NATS_SERVER")) {
    if (::access(v->c_str(), X_OK) == 0) return std::filesystem::path{*v};
    return std::nullopt;
  }
  for (const char* p : {"/usr/bin/nats-server", "/usr/sbin/nats-server", "/usr/local/bin/nats-server"}) {
    if (::access(p, X_OK) == 0) return std::filesystem::path{p};
  }
  return std::nullopt;
}

/**
 * A throwaway JetStream cluster of three nats-server processes on loopback, running for as long as
 * the object lives. Each node has its own client and route port (free ones) and its own store
 * under a temporary directory; the servers are children of this process with a parent-death
 * signal, so they go down with the test program however it ends. Nodes can be killed, stopped and
 * started again with their data; the ports stay the same.
 *
 * @par Thread safety
 * Not thread-safe. Create it from the main thread (the parent-death signal fires when the thread
 * that started a server exits).
 */
class nats_cluster {
 public:
  /// The number of nodes.
  static constexpr int size = 3;

  /// Writes the configurations and starts every node, then waits until JetStream has a meta
  /// leader. @throws std::runtime_error when the cluster does not come up.
  explicit nats_cluster(std::filesystem::path binary, nats_cluster_options options = {})
      : binary_(std::move(binary)), options_(options) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "replicant-nats.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error{"nats_cluster: mkdtemp failed"};
    dir_ = tmpl;
    for (int i = 0; i < size; ++i) {
      nodes_[static_cast<std::size_t>(i)].client_port = nats_detail::free_port();
      nodes_[static_cast<std::size_t>(i)].route_port = nats_detail::free_port();
    }
    make_secrets();
    for (int i = 0; i < size; ++i) write_config(i);
    for (int i = 0; i < size; ++i) start(i);
    if (!wait_ready(std::chrono::seconds(60))) throw std::runtime_error{"nats_cluster: JetStream did not come up"};
  }
  nats_cluster(const nats_cluster&) = delete;
  auto operator=(const nats_cluster&) -> nats_cluster& = delete;
  /// Kills every node and removes the directory (unless `REPLICANT_NATS_KEEP=1`). Never throws.
  ~nats_cluster() {
    for (int i = 0; i < size; ++i) kill(i);
    if (nats_detail::env("REPLICANT_NATS_KEEP") != std::optional<std::string>{"1"}) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }

  /// The name node @p i has in the cluster (`n1`, `n2`, `n3`), as stream info reports leaders.
  [[nodiscard]] static auto node_name(int i) -> std::string { return "n" + std::to_string(i + 1); }

  /// The client URLs of every node, comma-separated, for user @p user (whose password is its name).
  [[nodiscard]] auto urls(std::string_view user = "replicant") const -> std::string {
    std::string out;
    for (int i = 0; i < size; ++i) {
      if (i != 0) out += ',';
      out += url(i, user);
    }
    return out;
  }

  /// The client URL of node @p i for user @p user; for a cluster that authenticates otherwise
  /// than by password, without credentials (`tls://` when it serves TLS).
  [[nodiscard]] auto url(int i, std::string_view user = "replicant") const -> std::string {
    const std::string address = "127.0.0.1:" + std::to_string(node(i).client_port);
    if (options_.auth != nats_auth::passwords) return (options_.tls ? "tls://" : "nats://") + address;
    return "nats://" + std::string{user} + ":" + std::string{user} + "@" + address;
  }

  /// The certificates of a TLS cluster (the server's, a client's, two authorities), or none.
  [[nodiscard]] auto tls() const -> const std::optional<tls_files>& { return tls_; }
  /// The NKey user of an nkeys cluster.
  [[nodiscard]] auto nkey() const -> const nats_user_nkey& { return nkey_; }
  /// An NKey of an nkeys cluster that is no user of it.
  [[nodiscard]] auto stranger() const -> const nats_user_nkey& { return stranger_; }
  /// The credentials file of an operator cluster's user, whose account has JetStream.
  [[nodiscard]] auto credentials() const -> const nats_credentials_file& { return credentials_; }
  /// A credentials file of a user whose account an operator cluster does not know (signed by
  /// another account, which no operator the servers trust issued).
  [[nodiscard]] auto stranger_credentials() const -> const nats_credentials_file& { return stranger_credentials_; }
  /// A credentials file of an operator cluster holding its user's JWT, but another user's seed.
  [[nodiscard]] auto mismatched_credentials() const -> const nats_credentials_file& { return mismatched_credentials_; }
  /// The file of a token cluster's token.
  [[nodiscard]] auto token_file() const -> std::filesystem::path { return dir_ / "token"; }
  /// A file holding a token that is not the cluster's.
  [[nodiscard]] auto wrong_token_file() const -> std::filesystem::path { return dir_ / "wrong-token"; }

  /**
   * Sets @p opts for the harness's own connections to this cluster: the servers, and for a
   * secured cluster its authority, the client certificate and the cluster's credentials.
   * @return NATS_OK or nats.c's status.
   */
  [[nodiscard]] auto configure(natsOptions* opts) const -> natsStatus {
    natsStatus s = set_nats_servers(opts, urls());
    if (s == NATS_OK && tls_) s = natsOptions_LoadCATrustedCertificates(opts, tls_->root_certificate.c_str());
    if (s == NATS_OK && tls_) {
      s = natsOptions_LoadCertificatesChain(opts, tls_->client_certificate.c_str(), tls_->client_key.c_str());
    }
    if (s == NATS_OK && options_.auth == nats_auth::nkeys) {
      s = natsOptions_SetNKeyFromSeed(opts, nkey_.public_key.c_str(), nkey_.seed_file.c_str());
    }
    if (s == NATS_OK && options_.auth == nats_auth::token) s = natsOptions_SetToken(opts, token_.c_str());
    if (s == NATS_OK && options_.auth == nats_auth::operator_jwt) {
      s = natsOptions_SetUserCredentialsFromFiles(opts, credentials_.path.c_str(), nullptr);
    }
    return s;
  }

  /// Starts node @p i (no-op when it runs) and waits until it accepts clients.
  /// @throws std::runtime_error when it does not.
  void start(int i) {
    auto& n = node(i);
    if (n.pid > 0) return;
    const std::string conf = (dir_ / (node_name(i) + ".conf")).string();
    const std::string log = (dir_ / (node_name(i) + ".log")).string();
    std::string bin = binary_.string();
    std::string flag = "-c";
    std::string conf_arg = conf;
    std::array<char*, 4> argv{bin.data(), flag.data(), conf_arg.data(), nullptr};
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error{"nats_cluster: fork failed"};
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      const int in = ::open("/dev/null", O_RDONLY);
      if (out < 0 || in < 0) ::_exit(126);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    n.pid = pid;
    const bool up = nats_detail::wait_for(
        [&] {
          int status = 0;
          if (::waitpid(n.pid, &status, WNOHANG) == n.pid) {
            n.pid = 0;
            return true;  // exited: reported below
          }
          return nats_detail::accepting(n.client_port);
        },
        std::chrono::seconds(30));
    if (!up || n.pid == 0) {
      kill(i);
      throw std::runtime_error{"nats_cluster: " + node_name(i) + " did not start (see " + log + ")"};
    }
  }

  /// SIGKILL to node @p i, and waits for it: a crash. No-op when it is down.
  void kill(int i) noexcept { signal_and_wait(i, SIGKILL); }

  /// SIGTERM to node @p i, and waits for it: a clean shutdown. No-op when it is down.
  void stop(int i) noexcept { signal_and_wait(i, SIGTERM); }

  /// Whether node @p i runs.
  [[nodiscard]] auto running(int i) const -> bool { return node(i).pid > 0; }

  /// The process id of node @p i, or 0 when it is down (what a benchmark charges CPU time to).
  [[nodiscard]] auto pid(int i) const -> pid_t { return node(i).pid; }

  /// Every node down (SIGKILL when @p crash, else SIGTERM), then every node up again, then waits
  /// until JetStream has a meta leader. @throws std::runtime_error when it does not come back.
  void restart_all(bool crash) {
    for (int i = 0; i < size; ++i) crash ? kill(i) : stop(i);
    for (int i = 0; i < size; ++i) start(i);
    if (!wait_ready(std::chrono::seconds(60))) throw std::runtime_error{"nats_cluster: JetStream did not come back"};
  }

  /// Waits up to @p timeout until the running nodes' JetStream answers account requests (it has a
  /// meta leader). @return whether it did.
  [[nodiscard]] auto wait_ready(std::chrono::milliseconds timeout) const -> bool {
    return nats_detail::wait_for(
        [&] {
          natsOptions* opts = nullptr;
          natsConnection* nc = nullptr;
          jsCtx* js = nullptr;
          jsAccountInfo* ai = nullptr;
          bool ok = natsOptions_Create(&opts) == NATS_OK && configure(opts) == NATS_OK &&
                    natsOptions_SetTimeout(opts, 1000) == NATS_OK && natsConnection_Connect(&nc, opts) == NATS_OK &&
                    natsConnection_JetStream(&js, nc, nullptr) == NATS_OK;
          jsOptions jo;
          jsOptions_Init(&jo);
          jo.Wait = 1000;
          ok = ok && js_GetAccountInfo(&ai, js, &jo, nullptr) == NATS_OK;
          jsAccountInfo_Destroy(ai);
          jsCtx_Destroy(js);
          natsConnection_Destroy(nc);
          natsOptions_Destroy(opts);
          return ok;
        },
        timeout);
  }

  /// The directory of the configurations, logs (`n1.log`...) and stores.
  [[nodiscard]] auto directory() const -> const std::filesystem::path& { return dir_; }

 private:
  struct node_state {
    int client_port = 0;
    int route_port = 0;
    pid_t pid = 0;
  };

  [[nodiscard]] auto node(int i) -> node_state& { return nodes_.at(static_cast<std::size_t>(i)); }
  [[nodiscard]] auto node(int i) const -> const node_state& { return nodes_.at(static_cast<std::size_t>(i)); }

  void signal_and_wait(int i, int sig) noexcept {
    auto& n = node(i);
    if (n.pid <= 0) return;
    ::kill(n.pid, sig);
    int status = 0;
    ::waitpid(n.pid, &status, 0);
    n.pid = 0;
  }

  // The certificates, NKeys and tokens the options ask for.
  void make_secrets() {
    if (options_.tls) tls_ = make_tls_files(dir_ / "tls");
    if (options_.auth == nats_auth::nkeys) {
      nkey_ = make_user_nkey(dir_, "user");
      stranger_ = make_user_nkey(dir_, "stranger");
    }
    if (options_.auth == nats_auth::token) {
      token_ = "t0ken-" + std::to_string(::getpid()) + "-" + std::to_string(nodes_[0].client_port);
      std::ofstream{token_file()} << token_ << "\n";
      std::ofstream{wrong_token_file()} << token_ << "-not\n";
    }
    if (options_.auth == nats_auth::operator_jwt) make_operator();
  }

  // Operator mode's keys and JWTs: an operator, its system account and the account of the user,
  // which has JetStream; a stranger account the operator never signed, and a user of it.
  void make_operator() {
    const auto dir = dir_ / "operator";
    std::filesystem::create_directories(dir);
    const auto op = make_nkey(dir, "operator", nkey_kind::operator_key);
    const auto system = make_nkey(dir, "system", nkey_kind::account);
    const auto account = make_nkey(dir, "account", nkey_kind::account);
    const auto user = make_nkey(dir, "user", nkey_kind::user);
    const auto stranger_account = make_nkey(dir, "stranger-account", nkey_kind::account);
    const auto stranger = make_nkey(dir, "stranger", nkey_kind::user);
    operator_jwt_file_ = dir / "operator.jwt";
    std::ofstream{operator_jwt_file_} << issue_jwt(op, op.public_key, "replicant-operator", operator_claim()) << "\n";
    system_account_ = system.public_key;
    accounts_ = {{system.public_key, issue_jwt(op, system.public_key, "SYS", account_claim(false))},
                 {account.public_key, issue_jwt(op, account.public_key, "replicant", account_claim(true))}};
    const auto user_jwt = issue_jwt(account, user.public_key, "replicant", user_claim());
    credentials_ = write_credentials(dir / "user.creds", user_jwt, seed_of(user));
    stranger_credentials_ = write_credentials(
        dir / "stranger.creds", issue_jwt(stranger_account, stranger.public_key, "stranger", user_claim()),
        seed_of(stranger));
    mismatched_credentials_ = write_credentials(dir / "mismatched.creds", user_jwt, seed_of(stranger));
  }

  // The client side's TLS and authorization blocks of a node's configuration.
  [[nodiscard]] auto client_security() const -> std::string {
    std::string out;
    if (tls_) {
      out += "tls {\n  cert_file: \"" + tls_->server_certificate.string() + "\"\n  key_file: \"" +
             tls_->server_key.string() + "\"\n  ca_file: \"" + tls_->root_certificate.string() +
             "\"\n  verify: " + (options_.client_certificates ? "true" : "false") + "\n  timeout: 5\n}\n";
    }
    switch (options_.auth) {
      case nats_auth::passwords:
        return out + "authorization {\n  users: [\n    {user: \"replicant\", password: \"replicant\"}\n" +
               "    {user: \"restricted\", password: \"restricted\", permissions: {publish: {deny: " +
               "[\"restricted.>\"]}}}\n  ]\n}\n";
      case nats_auth::nkeys: return out + "authorization {\n  users: [ {nkey: " + nkey_.public_key + "} ]\n}\n";
      case nats_auth::token: return out + "authorization {\n  token: \"" + token_ + "\"\n}\n";
      case nats_auth::operator_jwt: {
        out += "operator: \"" + operator_jwt_file_.string() + "\"\nsystem_account: " + system_account_ +
               "\nresolver: MEMORY\nresolver_preload: {\n";
        for (const auto& [key, jwt] : accounts_) out += "  " + key + ": \"" + jwt + "\"\n";
        return out + "}\n";
      }
    }
    return out;
  }

  // One node's configuration: loopback only, its store in the directory, routes to all three
  // (a route to itself is ignored), the clients' TLS and users.
  void write_config(int i) {
    std::string routes;
    for (int j = 0; j < size; ++j) {
      if (j != 0) routes += ", ";
      routes += "\"nats-route://127.0.0.1:" + std::to_string(node(j).route_port) + "\"";
    }
    std::ofstream conf{dir_ / (node_name(i) + ".conf")};
    conf << "server_name: " << node_name(i) << "\n"
         << "host: 127.0.0.1\nport: " << node(i).client_port << "\n"
         << "jetstream {\n  store_dir: \"" << (dir_ / node_name(i)).string()
         << "\"\n  max_memory_store: 67108864\n  max_file_store: 4294967296\n}\n"
         << "cluster {\n  name: replicant\n  host: 127.0.0.1\n  port: " << node(i).route_port << "\n  routes: ["
         << routes << "]\n}\n"
         << client_security();
    if (!conf) throw std::runtime_error{"nats_cluster: could not write a configuration"};
  }

  std::filesystem::path binary_;
  nats_cluster_options options_;
  std::filesystem::path dir_;
  std::array<node_state, size> nodes_{};
  std::optional<tls_files> tls_;
  nats_user_nkey nkey_;
  nats_user_nkey stranger_;
  std::string token_;
  std::filesystem::path operator_jwt_file_;
  std::string system_account_;
  std::vector<std::pair<std::string, std::string>> accounts_;  // public key, JWT
  nats_credentials_file credentials_;
  nats_credentials_file stranger_credentials_;
  nats_credentials_file mismatched_credentials_;
};

/**
 * The process-wide JetStream cluster of a test program, created on first use. When nats-server is
 * missing it does not return: it exits 77 (ctest: skipped), or ends the program with a failure
 * under `REPLICANT_REQUIRE_ALL_PG=1` (support/common/required.hpp), as a missing PostgreSQL does.
 * @throws std::runtime_error when the cluster cannot be started.
 */
[[nodiscard]] inline auto live_nats() -> nats_cluster& {
  static const std::unique_ptr<nats_cluster> cluster = [] {
    const auto binary = nats_server_binary();
    if (!binary) skip_program_or_fail("nats-server is not installed (tools/provision installs Debian's)");
    return std::make_unique<nats_cluster>(*binary);
  }();
  return *cluster;
}

/**
 * Adds the stream @p cfg describes through @p js, retried for up to @p timeout while a fresh or
 * restarted cluster settles: it may have a meta leader and still refuse to place a replicated
 * stream until every peer has reported in. A stream of that name that exists already counts.
 * @return whether the stream exists.
 */
inline auto add_stream_when_settled(jsCtx* js, jsStreamConfig& cfg, std::chrono::milliseconds timeout) -> bool {
  return nats_detail::wait_for(
      [&] {
        jsStreamInfo* info = nullptr;
        jsErrCode code = static_cast<jsErrCode>(0);
        const natsStatus s = js_AddStream(&info, js, &cfg, nullptr, &code);
        jsStreamInfo_Destroy(info);
        return s == NATS_OK || code == JSStreamNameExistErr;
      },
      timeout);
}

/// What a stream holds, as its leader reports it.
struct stream_state {
  std::uint64_t messages = 0;       ///< messages stored
  std::uint64_t last_sequence = 0;  ///< the sequence of the last one stored
};

/// The state of stream @p stream through @p js, as its leader sees it, or nothing while the cluster
/// cannot say (no leader, no such stream). While a replicated stream has no leader, each of its
/// members answers with its own copy, which may be behind: such an answer names no leader, and is
/// not taken.
inline auto stream_state_of(jsCtx* js, const std::string& stream) -> std::optional<stream_state> {
  jsStreamInfo* info = nullptr;
  std::optional<stream_state> out;
  if (js_GetStreamInfo(&info, js, stream.c_str(), nullptr, nullptr) == NATS_OK &&
      (info->Cluster == nullptr || (info->Cluster->Leader != nullptr && *info->Cluster->Leader != '\0'))) {
    out = stream_state{info->State.Msgs, info->State.LastSeq};
  }
  jsStreamInfo_Destroy(info);
  return out;
}

/**
 * The commit position a replicant-jetstream marker names: the part of the last message on
 * @p subject of stream @p stream whose message id ("<commit LSN>:<rest>") precedes the last colon.
 * @return that position as a number, or 0 when there is no such message or its id is not one.
 */
inline auto last_marker_position(jsCtx* js, const std::string& stream, const std::string& subject) -> std::uint64_t {
  natsMsg* m = nullptr;
  std::uint64_t out = 0;
  if (js_GetLastMsg(&m, js, stream.c_str(), subject.c_str(), nullptr, nullptr) == NATS_OK) {
    const char* id = nullptr;
    if (natsMsgHeader_Get(m, "Nats-Msg-Id", &id) == NATS_OK && id != nullptr) {
      const std::string_view v{id};
      if (const auto at = replicant::parse_lsn(v.substr(0, v.rfind(':')))) out = at->value();
    }
  }
  natsMsg_Destroy(m);
  return out;
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SERVER_NATS_CLUSTER_HPP
