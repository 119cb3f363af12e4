// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JSONL_SINK_FILE_SINK_HPP
#define REPLICANT_EXAMPLES_JSONL_SINK_FILE_SINK_HPP

/// @file
/// replicant-jsonl-sink's sink: committed transactions appended to a file as JSON lines, fsynced
/// per transaction. A file cannot store a checkpoint atomically with the lines, so the sink is a
/// `replicant::lib_mode_sink` and the replication pipeline keeps the checkpoint in a
/// `file_checkpoint_store`, written after the sink returned.
///
/// The lines are replicant-tail's (examples/tail/json.hpp), plus one commit line per transaction,
/// which makes the file self-delimiting: a reader applies a transaction when it reaches its commit
/// line, and skips a commit LSN it has already applied (the one transaction a crash may repeat).

#include "../tail/json.hpp"
#include "../tail/output.hpp"

#include <replicant/core/result.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/sink/vocabulary.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace replicant::examples::jsonl {

/**
 * An output file opened for appending, with how many bytes of an interrupted transaction were cut off.
 */
struct opened_output {
  /// The descriptor (`O_APPEND`); the caller closes it.
  int fd = -1;
  /// Bytes removed from the end: an interrupted transaction's lines, or 0.
  std::uint64_t cut = 0;
};

namespace detail {

[[nodiscard]] inline auto os_error() -> unexpected<std::error_code> {
  return unexpected<std::error_code>(std::error_code{errno, std::system_category()});
}

// The offset just past the last '\n' among the first @p size bytes of @p fd (0 when none), read
// backwards in blocks.
[[nodiscard]] inline auto end_of_last_line(int fd, std::uint64_t size) -> result<std::uint64_t> {
  char block[4096];
  std::uint64_t end = size;
  while (end > 0) {
    const std::uint64_t begin = end > sizeof block ? end - sizeof block : 0;
    const auto want = static_cast<std::size_t>(end - begin);
    const ssize_t n = ::pread(fd, block, want, static_cast<off_t>(begin));
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error();
    }
    if (static_cast<std::size_t>(n) != want) return unexpected<std::error_code>(make_error_code(std::errc::io_error));
    for (std::size_t i = want; i > 0; --i) {
      if (block[i - 1] == '\n') return begin + i;
    }
    end = begin;
  }
  return std::uint64_t{0};
}

// Reads the @p n bytes at @p at into @p out.
[[nodiscard]] inline auto read_exactly(int fd, char* out, std::size_t n, std::uint64_t at) -> result<void> {
  for (;;) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return os_error();
    if (static_cast<std::size_t>(got) != n) return unexpected<std::error_code>(make_error_code(std::errc::io_error));
    return {};
  }
}

// The first bytes of every line the sink writes (tail::transaction_prefix), and the end of a commit
// line before its change count. Inside a JSON string a quote is escaped, so a row value can never
// produce either; a column list ends in "}}", never in a count and one brace.
inline constexpr std::string_view line_start = "{\"lsn\":\"";
inline constexpr std::string_view commit_marker = ",\"op\":\"commit\",\"changes\":";

// What the whole line [@p begin, @p end) (its '\n' at end - 1) is.
enum class line_kind { foreign, change, commit };

[[nodiscard]] inline auto kind_of_line(int fd, std::uint64_t begin, std::uint64_t end) -> result<line_kind> {
  const std::uint64_t length = end - 1 - begin;  // without the '\n'
  char head[line_start.size()];
  if (length < sizeof head) return line_kind::foreign;
  if (auto r = read_exactly(fd, head, sizeof head, begin); !r) return unexpected(r.error());
  if (std::string_view{head, sizeof head} != line_start) return line_kind::foreign;
  // The tail: the marker, up to 20 digits and '}'.
  char tail[commit_marker.size() + 21];
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(length, sizeof tail));
  if (auto r = read_exactly(fd, tail, n, end - 1 - n); !r) return unexpected(r.error());
  std::string_view t{tail, n};
  if (!t.ends_with('}')) return line_kind::change;
  t.remove_suffix(1);
  const auto digits = t.find_last_not_of("0123456789");
  if (digits == std::string_view::npos || digits + 1 == t.size()) return line_kind::change;
  return t.substr(0, digits + 1).ends_with(commit_marker) ? line_kind::commit : line_kind::change;
}

// The offset just past the file's last whole transaction: an incomplete last line goes, and so do
// the change lines after the last commit line (a transaction a crash interrupted). Lines the sink
// did not write are kept, and nothing before them is looked at.
[[nodiscard]] inline auto end_of_last_transaction(int fd, std::uint64_t size) -> result<std::uint64_t> {
  auto end = end_of_last_line(fd, size);
  while (end && *end > 0) {
    auto begin = end_of_last_line(fd, *end - 1);
    if (!begin) return begin;
    auto kind = kind_of_line(fd, *begin, *end);
    if (!kind) return unexpected(kind.error());
    if (*kind != line_kind::change) return end;
    end = begin;
  }
  return end;
}

}  // namespace detail

/**
 * Opens @p path for appending, creating it (mode 0600: the lines hold row data) if it is missing.
 *
 * A crash in the middle of a transaction can leave its change lines without their commit line, the
 * last of them perhaps without its newline. That tail is cut off (and the cut made durable) before
 * anything is appended, so that the file holds whole transactions only; the one cut is written
 * again in full, because its checkpoint was never written. Lines of another format are never cut.
 *
 * @return the descriptor and the bytes cut, or the OS error (the path is never part of it).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto open_output(const std::filesystem::path& path) -> result<opened_output> {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return detail::os_error();
  const auto fail_closing = [fd](std::error_code ec) {
    ::close(fd);
    return unexpected<std::error_code>(ec);
  };
  struct stat st{};
  if (::fstat(fd, &st) != 0) return fail_closing(std::error_code{errno, std::system_category()});
  if (!S_ISREG(st.st_mode)) return fail_closing(make_error_code(std::errc::invalid_argument));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  auto keep = detail::end_of_last_transaction(fd, size);
  if (!keep) return fail_closing(keep.error());
  if (*keep != size) {
    if (::ftruncate(fd, static_cast<off_t>(*keep)) != 0 || ::fsync(fd) != 0) {
      return fail_closing(std::error_code{errno, std::system_category()});
    }
  }
  return opened_output{.fd = fd, .cut = size - *keep};
}

/**
 * The commit line that closes transaction @p t in the file:
 * `{"lsn":"0/16B3748","xid":754,"commit_time":"...","op":"commit","changes":3}`.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto commit_line(const transaction& t) -> std::string {
  std::string line = tail::transaction_prefix(t);
  line += "\"op\":\"commit\",\"changes\":";
  line += std::to_string(t.change_count());
  line += "}\n";
  return line;
}

/**
 * Appends each committed transaction to a file: its change lines (tail::render_transaction), then
 * its commit line, then `fsync`. Only then does it return, and only then does the pipeline write
 * the checkpoint and acknowledge the slot: the file is never behind the checkpoint.
 *
 * It keeps no watermark: under @ref replicant::lib_owned_checkpoint the pipeline skips what the
 * store's checkpoint covers before it reaches the sink.
 *
 * @par Example
 * @code
 * auto opened = open_output("changes.jsonl");
 * tail::output_stream out{opened->fd};
 * jsonl_file_sink sink{out};
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe (the pipeline calls it from its applier thread).
 */
class jsonl_file_sink {
 public:
  /// The optional hooks it implements, checked against its members at compile time.
  static constexpr hook hooks = hook::schema_change;

  /// Appends to @p out, which must outlive the sink. Never throws.
  explicit jsonl_file_sink(tail::output_stream& out) noexcept : out_(&out) {}

  /**
   * Appends the lines of @p t and its commit line, and makes them durable.
   * @return nothing; `errc::decode_failure` for a malformed value; or the OS error of the write or
   * the fsync. After an error nothing of @p t is acknowledged and the next run writes it again.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto handle_transaction(const transaction& t) -> result<void> {
    buffer_.clear();
    const auto append = [this](std::string& chunk) -> result<void> {
      auto w = out_->write(chunk);
      chunk.clear();
      return w;
    };
    if (auto r = tail::render_transaction(t, false, buffer_, append); !r) return r;
    buffer_ = commit_line(t);
    if (auto w = append(buffer_); !w) return w;
    if (auto s = out_->sync(); !s) return s;
    ++written_;
    return {};
  }

  /**
   * Accepts every schema change, destructive ones included: each line names its columns, so later
   * lines simply show the new shape. Without this hook the pipeline would halt on such a change.
   * Never fails; never throws.
   */
  [[nodiscard]] auto handle_schema_change(const schema_change& /*change*/) noexcept -> result<void> { return {}; }

  /// Transactions written so far. Never throws.
  [[nodiscard]] auto written() const noexcept -> std::uint64_t { return written_; }

 private:
  tail::output_stream* out_;
  std::string buffer_;
  std::uint64_t written_ = 0;
};

static_assert(lib_mode_sink<jsonl_file_sink>);

}  // namespace replicant::examples::jsonl

#endif  // REPLICANT_EXAMPLES_JSONL_SINK_FILE_SINK_HPP
