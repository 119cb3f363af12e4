// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DETAIL_SPILL_FILE_HPP
#define REPLICANT_DETAIL_SPILL_FILE_HPP

// Where the disk_spill policy puts the changes of a transaction too large to hold: one scratch file
// per transaction, created 0600 in a 0700 directory and unlinked at once, so that it vanishes with
// the descriptor however the process ends. Records are appended through a buffer and read back in
// order through another; nothing is fsynced (a crash discards the transaction anyway, and the server
// sends it again).
//
// Record: op (1 byte), old tuple kind (1), flags (1: truncate cascade, 2: restart identity), 1 spare,
// relation index (u32), record length (u32), old length (u32), then the two TupleData wire images.

#include <replicant/change.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/error.hpp>
#include <replicant/result.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace replicant::detail {

// Where spill files go and what they may cost, shared by the assembler's transactions.
struct spill_settings {
  std::filesystem::path dir;
  std::string prefix;  // file-name prefix, e.g. "replicant-<slot>-", for the sweep at connect
  std::size_t threshold_bytes = 0;
  std::uint64_t max_bytes = 0;
};

// Removes the spill files under dir whose names start with prefix (left by a process that died in
// the instant between creating and unlinking one). Best effort: never fails.
inline auto sweep_spill_files(const std::filesystem::path& dir, const std::string& prefix) noexcept -> void {
  try {
    std::error_code ec;
    for (std::filesystem::directory_iterator it{dir, ec}, end; !ec && it != end; it.increment(ec)) {
      const auto name = it->path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(".spill")) std::filesystem::remove(it->path(), ec);
    }
  } catch (...) {  // std::bad_alloc: the sweep is only a courtesy
  }
}

// The spilled part of one transaction.
class spill_file {
 public:
  static constexpr std::size_t header_size = 16;
  static constexpr std::size_t buffer_size = 256 * 1024;

  // Creates the file under settings.dir (made 0700 if absent). errc::io_failed when it cannot.
  static auto create(const spill_settings& settings) -> result<spill_file> {
    std::error_code ec;
    std::filesystem::create_directories(settings.dir, ec);
    if (ec) return fail(errc::io_failed);
    static std::atomic<std::uint64_t> counter{0};
    const auto name = settings.dir / (settings.prefix + std::to_string(::getpid()) + "-" +
                                      std::to_string(counter.fetch_add(1)) + ".spill");
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return fail(errc::io_failed);
    ::unlink(name.c_str());  // from now on it lives exactly as long as the descriptor
    return spill_file{fd};
  }

  spill_file(spill_file&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)),
        size_(other.size_),
        records_(other.records_),
        pending_(std::move(other.pending_)) {}
  auto operator=(spill_file&& other) noexcept -> spill_file& {
    if (this != &other) {
      close();
      fd_ = std::exchange(other.fd_, -1);
      size_ = other.size_;
      records_ = other.records_;
      pending_ = std::move(other.pending_);
    }
    return *this;
  }
  spill_file(const spill_file&) = delete;
  auto operator=(const spill_file&) -> spill_file& = delete;
  ~spill_file() { close(); }

  // Appends one change whose relation is relations[relation_index]. errc::io_failed on a failed write.
  auto append(const change& c, std::uint32_t relation_index) -> result<void> {
    const auto record = c.record_tuple().wire();
    const auto old = c.old_tuple().wire();
    std::byte header[header_size]{};
    header[0] = static_cast<std::byte>(c.op());
    header[1] = static_cast<std::byte>(c.old_kind());
    header[2] = static_cast<std::byte>((c.truncate_cascade() ? 1U : 0U) | (c.truncate_restart_identity() ? 2U : 0U));
    put32(header + 4, relation_index);
    put32(header + 8, static_cast<std::uint32_t>(record.size()));
    put32(header + 12, static_cast<std::uint32_t>(old.size()));
    ++records_;
    pending_.insert(pending_.end(), header, header + header_size);
    pending_.insert(pending_.end(), record.begin(), record.end());
    pending_.insert(pending_.end(), old.begin(), old.end());
    size_ += header_size + record.size() + old.size();
    if (pending_.size() >= buffer_size) return flush();
    return {};
  }

  // Writes what is buffered. errc::io_failed on a failed write (a full disk, ...).
  auto flush() -> result<void> {
    const std::uint64_t at = size_ - pending_.size();
    std::size_t done = 0;
    while (done < pending_.size()) {
      const auto n = ::pwrite(fd_, pending_.data() + done, pending_.size() - done, static_cast<off_t>(at + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return fail(errc::io_failed);
      done += static_cast<std::size_t>(n);
    }
    pending_.clear();
    return {};
  }

  // Keeps only the first n records (a streamed subtransaction was rolled back). Finds where record n
  // starts by reading the headers: rare enough not to keep an offset per record in memory.
  auto truncate(std::size_t n) -> result<void>;

  [[nodiscard]] auto records() const noexcept -> std::size_t { return records_; }
  [[nodiscard]] auto bytes() const noexcept -> std::uint64_t { return size_; }
  [[nodiscard]] auto descriptor() const noexcept -> int { return fd_; }

 private:
  explicit spill_file(int fd) noexcept : fd_(fd) {}

  static auto put32(std::byte* at, std::uint32_t v) noexcept -> void { std::memcpy(at, &v, sizeof v); }

  auto close() noexcept -> void {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  int fd_ = -1;
  std::uint64_t size_ = 0;          // bytes appended, written or buffered
  std::size_t records_ = 0;         // records appended
  std::vector<std::byte> pending_;  // appended, not yet written
};

// Reads a spill file's records back in order, one change at a time, through a buffer. Changes view
// the buffer: each is valid until the next call to next().
class spill_cursor {
 public:
  spill_cursor() = default;
  spill_cursor(int fd, std::uint64_t size, std::size_t records) noexcept : fd_(fd), size_(size), left_(records) {}

  // The next record's parts; false at the end. errc::io_failed or errc::decode_failure on a bad read.
  struct record {
    change_op op{};
    pgoutput::old_tuple_kind old_kind{};
    bool cascade = false;
    bool restart_identity = false;
    std::uint32_t relation_index = 0;
    pgoutput::tuple_data new_tuple;
    pgoutput::tuple_data old_tuple;
  };
  // Moves past the next record without decoding it.
  auto skip() -> result<void> {
    auto header = take(spill_file::header_size);
    if (!header) return unexpected(header.error());
    auto body = take(std::size_t{get32(*header + 8)} + get32(*header + 12));
    if (!body) return unexpected(body.error());
    --left_;
    return {};
  }

  // Where the next record starts in the file.
  [[nodiscard]] auto offset() const noexcept -> std::uint64_t { return read_ - (end_ - begin_); }

  auto next(record& out) -> result<bool> {
    if (left_ == 0) return false;
    auto header = take(spill_file::header_size);
    if (!header) return unexpected(header.error());
    const std::byte* h = *header;
    const auto record_len = get32(h + 8);
    const auto old_len = get32(h + 12);
    out.op = static_cast<change_op>(h[0]);
    out.old_kind = static_cast<pgoutput::old_tuple_kind>(h[1]);
    out.cascade = (static_cast<unsigned>(h[2]) & 1U) != 0;
    out.restart_identity = (static_cast<unsigned>(h[2]) & 2U) != 0;
    out.relation_index = get32(h + 4);
    auto body = take(std::size_t{record_len} + old_len);
    if (!body) return unexpected(body.error());
    out.new_tuple = {};
    out.old_tuple = {};
    if (record_len > 0) {
      auto t = pgoutput::parse_tuple_data({*body, record_len});
      if (!t) return unexpected(t.error());
      out.new_tuple = *t;
    }
    if (old_len > 0) {
      auto t = pgoutput::parse_tuple_data({*body + record_len, old_len});
      if (!t) return unexpected(t.error());
      out.old_tuple = *t;
    }
    --left_;
    return true;
  }

 private:
  static auto get32(const std::byte* at) noexcept -> std::uint32_t {
    std::uint32_t v = 0;
    std::memcpy(&v, at, sizeof v);
    return v;
  }

  // The next n bytes of the file, contiguous in the buffer until the next take().
  auto take(std::size_t n) -> result<const std::byte*> {
    if (end_ - begin_ < n) {
      // Move the unread rest to the front, then read at least what is missing.
      if (end_ > begin_) std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      if (buffer_.size() < std::max(n, spill_file::buffer_size)) buffer_.resize(std::max(n, spill_file::buffer_size));
      while (end_ < n) {
        const auto want = std::min<std::uint64_t>(buffer_.size() - end_, size_ - read_);
        if (want == 0) return fail(errc::decode_failure);  // the file ends inside a record
        const auto got = ::pread(fd_, buffer_.data() + end_, static_cast<std::size_t>(want), static_cast<off_t>(read_));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return fail(errc::io_failed);
        end_ += static_cast<std::size_t>(got);
        read_ += static_cast<std::uint64_t>(got);
      }
    }
    const std::byte* at = buffer_.data() + begin_;
    begin_ += n;
    return at;
  }

  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t read_ = 0;
  std::size_t left_ = 0;
  std::vector<std::byte> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

inline auto spill_file::truncate(std::size_t n) -> result<void> {
  if (n >= records_) return {};
  if (auto f = flush(); !f) return f;
  spill_cursor cursor{fd_, size_, records_};
  for (std::size_t i = 0; i < n; ++i) {
    if (auto s = cursor.skip(); !s) return s;
  }
  size_ = cursor.offset();
  records_ = n;
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) return fail(errc::io_failed);
  return {};
}

}  // namespace replicant::detail

#endif  // REPLICANT_DETAIL_SPILL_FILE_HPP
