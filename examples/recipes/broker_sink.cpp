// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-recipe-broker-sink: a broker-style sink under deferred_checkpoint. It hands each
// transaction to an asynchronous producer and returns at once; the producer's delivery report, on a
// thread of its own, confirms it later (docs/checkpoint/deferred.md quotes it).
//
//   replicant-recipe-broker-sink SOURCE_CONNINFO LOG_FILE
//
// Streams the publication `recipe_pub` through the slot `recipe_broker`, created if missing (from
// now on). The "broker" is a local log file, one line per message, `<id> <changes>`, written by the
// producer's thread in groups, each group durable (fsync) before its deliveries are reported. Like a
// real broker with idempotent publishing, it drops a message whose id it already holds. SIGINT or
// SIGTERM stops it cleanly. tests/integration/examples/recipes.cpp kills and restarts it, and
// counts.

#include "run.hpp"

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/replicant.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

namespace {

/**
 * The stand-in for a broker's client library: publish() queues a message and returns; a thread of
 * the producer writes queued messages to the log in groups and then calls each one's delivery
 * report. Message ids only grow; one the log holds already is dropped and reported delivered.
 */
class async_producer {
 public:
  /// What publish() calls once the message is durable (an empty code) or never will be.
  using delivery_report = std::function<void(std::error_code)>;

  /// A producer appending to the log file @p fd; reads back the newest id it holds.
  explicit async_producer(int fd) : fd_(fd), newest_(read_newest(fd)) {
    worker_ = std::jthread{[this](const std::stop_token& stop) { deliver(stop); }};
  }
  async_producer(const async_producer&) = delete;
  auto operator=(const async_producer&) -> async_producer& = delete;
  ~async_producer() = default;

  /// Queues the message @p id with @p payload; @p report is called later, on the producer's thread.
  auto publish(replicant::lsn id, std::string payload, delivery_report report) -> void {
    {
      const std::scoped_lock lock{mutex_};
      queue_.push_back(pending{id, std::move(payload), std::move(report)});
    }
    ready_.notify_one();
  }

  /// The newest id the log holds durably, or none.
  [[nodiscard]] auto newest() -> std::optional<replicant::lsn> {
    const std::scoped_lock lock{mutex_};
    return newest_;
  }

 private:
  struct pending {
    replicant::lsn id;
    std::string payload;
    delivery_report report;
  };

  // The id of the log's last complete line. What follows it, a line cut off by a crash, is
  // removed first, so that the next line starts on a line of its own.
  static auto read_newest(int fd) -> std::optional<replicant::lsn> {
    struct stat st{};
    if (::fstat(fd, &st) != 0 || st.st_size == 0) return std::nullopt;
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    if (::pread(fd, text.data(), text.size(), 0) != st.st_size) return std::nullopt;
    const auto end = text.rfind('\n');
    const std::size_t kept = end == std::string::npos ? 0 : end + 1;
    if (kept != text.size() && ::ftruncate(fd, static_cast<off_t>(kept)) != 0) return std::nullopt;
    if (kept == 0) return std::nullopt;
    const auto before = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
    const std::size_t begin = before == std::string::npos ? 0 : before + 1;
    const std::string_view line = std::string_view{text}.substr(begin, end - begin);
    auto id = replicant::parse_lsn(line.substr(0, line.find(' ')));
    if (!id) return std::nullopt;
    return *id;
  }

  auto deliver(const std::stop_token& stop) -> void {
    std::unique_lock lock{mutex_};
    while (ready_.wait(lock, stop, [&] { return !queue_.empty(); })) {
      std::deque<pending> group;
      group.swap(queue_);
      std::optional<replicant::lsn> last = newest_;
      lock.unlock();
      std::string lines;
      for (const pending& m : group) {
        if (last && m.id <= *last) continue;  // a message id the log holds: dropped
        lines += replicant::to_string(m.id) + ' ' + m.payload + '\n';
        last = m.id;
      }
      const std::error_code ec = append(lines);
      lock.lock();
      if (!ec) newest_ = last;
      lock.unlock();
      for (const pending& m : group) m.report(ec);
      lock.lock();
    }
  }

  auto append(const std::string& lines) const -> std::error_code {
    for (std::size_t done = 0; done < lines.size();) {
      const auto n = ::write(fd_, lines.data() + done, lines.size() - done);
      if (n < 0 && errno != EINTR) return {errno, std::system_category()};
      if (n > 0) done += static_cast<std::size_t>(n);
    }
    if (!lines.empty() && ::fsync(fd_) != 0) return {errno, std::system_category()};
    return {};
  }

  int fd_;
  std::mutex mutex_;
  std::condition_variable_any ready_;
  std::deque<pending> queue_;
  std::optional<replicant::lsn> newest_;
  std::jthread worker_;  // last: stopped and joined before the members it uses are destroyed
};

//[recipe_broker_sink
// Publishes each transaction as one message whose id is its commit LSN, and returns at once. The
// producer's delivery report confirms it, from the producer's thread; the pipeline acknowledges the
// slot up to the newest commit confirmed with every one before it.
class broker_sink {
 public:
  explicit broker_sink(async_producer& producer) noexcept : producer_(producer) {}

  // The broker's newest message id: every transaction up to it is durable there. Read back at
  // every connect; streaming resumes after it.
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return producer_.newest(); }

  auto handle_transaction(const replicant::transaction& txn, replicant::confirmation done) -> replicant::result<void> {
    // `txn` is valid during this call only: the message is made of copies.
    std::string payload;
    for (const replicant::change& c : txn.changes()) {
      payload += (payload.empty() ? "" : ",") + std::string{replicant::to_string(c.op())} + ' ' + c.relation().table;
    }
    if (const auto ec = txn.read_error()) return replicant::unexpected(ec);
    producer_.publish(txn.commit_lsn(), std::move(payload), [done](std::error_code ec) {
      if (ec) {
        done.fail(ec);  // halts the pipeline; nothing from this transaction on is acknowledged
      } else {
        done.confirm();
      }
    });
    return {};
  }

 private:
  async_producer& producer_;
};
//]

static_assert(replicant::deferred_sink<broker_sink>);

// The type main() builds, for the stop signal.
using broker_pipeline = replicant::pgoutput_pipeline<broker_sink, replicant::deferred_checkpoint>;

constexpr std::string_view program = "replicant-recipe-broker-sink";

//[recipe_broker_pipeline
// Streams the publication recipe_pub into @p sink until SIGINT or SIGTERM (examples/recipes/run.hpp).
auto stream(broker_sink& sink, const std::string& source) -> int {
  replicant::pgoutput_options pg{.publications = {"recipe_pub"}};
  replicant::pipeline_options o{.conninfo = source, .slot = "recipe_broker", .start = replicant::start::go_forward{}};
  // At most 1,000 messages out at once; one not confirmed within 30 s halts the pipeline.
  replicant::pgoutput_pipeline<broker_sink, replicant::deferred_checkpoint> p{
      sink, pg, replicant::deferred_checkpoint{.max_unconfirmed = 1000, .confirm_timeout = std::chrono::seconds(30)},
      o};
  return replicant::examples::recipes::run_until_stopped(p, program);
}
//]

}  // namespace

auto main(int argc, char** argv) -> int {
  if (argc != 3) {
    std::cerr << "usage: " << program << " SOURCE_CONNINFO LOG_FILE\n";
    return 2;
  }
  if (!replicant::examples::stop_signal::install(&replicant::examples::stop_running_pipelines<broker_pipeline>)) {
    return 1;
  }
  const int fd = ::open(argv[2], O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::cerr << program << ": cannot open the log file\n";
    return 1;
  }
  int status = 1;
  {
    async_producer producer{fd};
    broker_sink sink{producer};
    status = stream(sink, argv[1]);
  }
  ::close(fd);
  return status;
}
