// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JETSTREAM_SECURITY_HPP
#define REPLICANT_EXAMPLES_JETSTREAM_SECURITY_HPP

/// @file
/// How replicant-jetstream proves who it is to NATS and how it protects the connection: a
/// credentials file (a user JWT and its NKey seed, as `nsc` writes it), an NKey and its seed file,
/// or a token read from a file, and TLS with the authority to trust and an optional client
/// certificate, each as nats.c takes it. Secrets are named by their files: a file's contents are
/// never on the command line (where every local user can read them) and never printed; a refusal
/// names the option, never a path or a value.

#include "../common/cli.hpp"
#include "jetstream_error.hpp"

#include <nats/nats.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::examples::jetstream {

/**
 * The credentials and TLS settings of the connections to NATS; empty strings are options not
 * given. At most one way to authenticate is set besides a user and password in the URLs.
 *
 * @par Thread safety
 * A value type.
 */
struct nats_security {
  /// `--nats-creds`: a credentials file (user JWT and NKey seed), for a server in operator mode.
  std::string credentials_file;
  /// `--nats-nkey`: the user's public NKey (`U...`), with nkey_seed_file.
  std::string nkey;
  /// `--nats-nkey-seed`: the file of that NKey's seed (`SU...`), read at each connection.
  std::string nkey_seed_file;
  /// `--nats-token-file`: a file whose first line is the token.
  std::string token_file;
  /// `--nats-tls`: connect with TLS only (also implied by ca_file and certificate_file).
  bool tls = false;
  /// `--nats-ca`: the PEM authorities to trust instead of the system's.
  std::string ca_file;
  /// `--nats-cert`: the client's PEM certificate chain, with key_file.
  std::string certificate_file;
  /// `--nats-key`: the client's PEM private key.
  std::string key_file;
};

/// Whether @p key looks like a user's public NKey: `U` and 55 more of base32's `A-Z 2-7`. Never
/// throws.
[[nodiscard]] constexpr auto looks_like_user_nkey(std::string_view key) noexcept -> bool {
  return key.size() == 56 && key.front() == 'U' &&
         std::all_of(key.begin(), key.end(), [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7'); });
}

/**
 * The security options on a @ref command_line, read as text by parse() and checked by check(),
 * shared by both of the program's modes (streaming and `--create-stream`).
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class security_arguments {
 public:
  /// Declares the options on @p cli, which must outlive this. @throws std::bad_alloc only.
  explicit security_arguments(command_line& cli) {
    const std::string group = "NATS authentication and TLS (files are read, never printed)";
    cli.text("--nats-creds", s_.credentials_file, "FILE", "none",
             "a credentials file: user JWT and NKey seed (operator mode)")
        .group(group);
    cli.text("--nats-nkey", s_.nkey, "PUBLIC", "none", "the user's public NKey (U...), with --nats-nkey-seed")
        .group(group);
    cli.text("--nats-nkey-seed", s_.nkey_seed_file, "FILE", "none", "the file holding that NKey's seed (SU...)")
        .group(group);
    cli.text("--nats-token-file", s_.token_file, "FILE", "none", "a file whose first line is the token").group(group);
    cli.flag("--nats-tls", s_.tls,
             "TLS only, trusting the system's authorities (implied by\n--nats-ca and --nats-cert)")
        .group(group);
    cli.text("--nats-ca", s_.ca_file, "FILE", "system's", "the PEM authorities that signed the servers' certificates")
        .group(group);
    cli.text("--nats-cert", s_.certificate_file, "FILE", "none", "a client certificate (PEM chain), with --nats-key")
        .group(group);
    cli.text("--nats-key", s_.key_file, "FILE", "none", "the client certificate's PEM private key").group(group);
  }

  /// Checks the values read and stores them in @p into. @return the refusal, or nothing.
  /// @throws std::bad_alloc only.
  [[nodiscard]] auto check(nats_security& into) const -> std::optional<refusal> {
    const int ways = int{!s_.credentials_file.empty()} + int{!s_.nkey_seed_file.empty() || !s_.nkey.empty()} +
                     int{!s_.token_file.empty()};
    if (ways > 1) return refusal{"--nats-creds, --nats-nkey-seed and --nats-token-file are alternatives: give one"};
    if (s_.nkey.empty() != s_.nkey_seed_file.empty()) return refusal{"--nats-nkey and --nats-nkey-seed go together"};
    if (!s_.nkey.empty() && !looks_like_user_nkey(s_.nkey)) {
      return refusal{"--nats-nkey is a user's public NKey: U and 55 more of A-Z and 2-7"};
    }
    if (s_.certificate_file.empty() != s_.key_file.empty()) return refusal{"--nats-cert and --nats-key go together"};
    for (const auto& [option, file] :
         {std::pair{"--nats-creds", &s_.credentials_file}, std::pair{"--nats-nkey-seed", &s_.nkey_seed_file},
          std::pair{"--nats-token-file", &s_.token_file}, std::pair{"--nats-ca", &s_.ca_file},
          std::pair{"--nats-cert", &s_.certificate_file}, std::pair{"--nats-key", &s_.key_file}}) {
      if (!file->empty() && !std::ifstream{*file}) return refusal{std::string{option} + " cannot be read"};
    }
    into = s_;
    into.tls = s_.tls || !s_.ca_file.empty() || !s_.certificate_file.empty();
    return std::nullopt;
  }

 private:
  nats_security s_;
};

namespace detail {

// The first line of file @p path without its line end, or nothing when the file cannot be read or
// the line is empty.
[[nodiscard]] inline auto first_line(const std::string& path) -> std::optional<std::string> {
  std::ifstream in{path};
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
  if (line.empty()) return std::nullopt;
  return line;
}

}  // namespace detail

/**
 * Sets @p opts to reach the comma-separated @p urls with the credentials and TLS of @p security.
 * The token is read from its file here, once per call (a restarted program reads a rotated one).
 * @return nothing, or the fault: security_files_unusable (a file nats.c cannot use, which no
 * retry mends), broker_error (anything else nats.c refused).
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto set_connection(natsOptions* opts, std::string_view urls, const nats_security& security)
    -> std::optional<jetstream_errc> {
  std::vector<std::string> list;
  for (std::size_t start = 0; start <= urls.size();) {
    const auto comma = std::min(urls.find(',', start), urls.size());
    if (comma > start) list.emplace_back(urls.substr(start, comma - start));
    start = comma + 1;
  }
  std::vector<const char*> pointers;
  for (const auto& u : list) pointers.push_back(u.c_str());
  if (natsOptions_SetServers(opts, pointers.data(), static_cast<int>(pointers.size())) != NATS_OK) {
    return jetstream_errc::broker_error;
  }
  natsStatus s = NATS_OK;
  if (security.tls) s = natsOptions_SetSecure(opts, true);
  if (s == NATS_OK && !security.ca_file.empty())
    s = natsOptions_LoadCATrustedCertificates(opts, security.ca_file.c_str());
  if (s == NATS_OK && !security.certificate_file.empty()) {
    s = natsOptions_LoadCertificatesChain(opts, security.certificate_file.c_str(), security.key_file.c_str());
  }
  if (s == NATS_OK && !security.credentials_file.empty()) {
    s = natsOptions_SetUserCredentialsFromFiles(opts, security.credentials_file.c_str(), nullptr);
  }
  if (s == NATS_OK && !security.nkey.empty()) {
    s = natsOptions_SetNKeyFromSeed(opts, security.nkey.c_str(), security.nkey_seed_file.c_str());
  }
  if (s == NATS_OK && !security.token_file.empty()) {
    const auto token = detail::first_line(security.token_file);
    s = token ? natsOptions_SetToken(opts, token->c_str()) : NATS_ERR;
  }
  if (s != NATS_OK) return jetstream_errc::security_files_unusable;
  return std::nullopt;
}

}  // namespace replicant::examples::jetstream

#endif  // REPLICANT_EXAMPLES_JETSTREAM_SECURITY_HPP
