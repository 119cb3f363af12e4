// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_NATS_CLUSTER_HPP
#define REPLICANT_TESTS_SUPPORT_NATS_CLUSTER_HPP

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

#include "support/required.hpp"

#include <nats/nats.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
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
  explicit nats_cluster(std::filesystem::path binary) : binary_(std::move(binary)) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "replicant-nats.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error{"nats_cluster: mkdtemp failed"};
    dir_ = tmpl;
    for (int i = 0; i < size; ++i) {
      nodes_[static_cast<std::size_t>(i)].client_port = nats_detail::free_port();
      nodes_[static_cast<std::size_t>(i)].route_port = nats_detail::free_port();
    }
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

  /// The client URL of node @p i for user @p user.
  [[nodiscard]] auto url(int i, std::string_view user = "replicant") const -> std::string {
    return "nats://" + std::string{user} + ":" + std::string{user} +
           "@127.0.0.1:" + std::to_string(node(i).client_port);
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
          bool ok = natsOptions_Create(&opts) == NATS_OK && set_nats_servers(opts, urls()) == NATS_OK &&
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

  // One node's configuration: loopback only, its store in the directory, routes to all three
  // (a route to itself is ignored), the two users.
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
         << "authorization {\n  users: [\n    {user: \"replicant\", password: \"replicant\"}\n"
         << "    {user: \"restricted\", password: \"restricted\", permissions: {publish: {deny: [\"restricted.>\"]}}}\n"
         << "  ]\n}\n";
    if (!conf) throw std::runtime_error{"nats_cluster: could not write a configuration"};
  }

  std::filesystem::path binary_;
  std::filesystem::path dir_;
  std::array<node_state, size> nodes_{};
};

/**
 * The process-wide JetStream cluster of a test program, created on first use. When nats-server is
 * missing it does not return: it exits 77 (ctest: skipped), or ends the program with a failure
 * under `REPLICANT_REQUIRE_ALL_PG=1` (support/required.hpp), as a missing PostgreSQL does.
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

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_NATS_CLUSTER_HPP
