// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// How a failed connection attempt is classified, from the texts libpq writes (verbose error
// verbosity, as pq::connection::open() sets it): the refusals a retry cannot fix, each apart, and
// everything else transient. The live side of the same is tests/integration/connection_faults.cpp
// and tests/integration/tls.cpp; here the texts that a live test cannot provoke at will (a TLS
// handshake cut short by the network) are checked as well.
#include <replicant/pq/connection.hpp>

#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>

BOOST_AUTO_TEST_SUITE(pq_connection_tests)

using replicant::pq::refusal;
using replicant::pq::detail::classify_refusal;
using replicant::pq::detail::tls_reach;

namespace {

// What libpq puts before each of its own messages (libpq 15 and later).
auto libpq(std::string_view text) -> std::string {
  return "connection to server at \"127.0.0.1\", port 5432 failed: " + std::string{text} + "\n";
}

auto why(std::string_view message, std::string_view sslmode = "prefer", bool needs_password = false,
         tls_reach reach = tls_reach::none) -> refusal {
  return classify_refusal(message, needs_password, sslmode, reach).why;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(classify_refusal_suite)

BOOST_AUTO_TEST_CASE(server_refusals_are_told_apart_by_their_sqlstate) {
  const auto pw =
      classify_refusal(libpq("FATAL:  28P01: password authentication failed for user \"x\""), false, "prefer");
  BOOST_TEST((pw.why == refusal::authentication));
  BOOST_TEST(pw.sqlstate == "28P01");
  BOOST_TEST((why(libpq("FATAL:  3D000: database \"x\" does not exist")) == refusal::database));
  BOOST_TEST((why(libpq("FATAL:  28000: role \"x\" does not exist")) == refusal::role));
  BOOST_TEST((why(libpq("FATAL:  28000: no pg_hba.conf entry for host \"127.0.0.1\", user \"x\", database \"y\", "
                        "no encryption")) == refusal::host));
  // A server that requires TLS refuses a client that says sslmode=disable through pg_hba.conf.
  BOOST_TEST((why(libpq("FATAL:  28000: no pg_hba.conf entry for host \"127.0.0.1\", user \"x\", database \"y\", "
                        "no encryption"),
                  "disable") == refusal::host));
  // Anything else the server says is transient.
  BOOST_TEST((why(libpq("FATAL:  57P03: the database system is starting up")) == refusal::none));
  BOOST_TEST((why(libpq("FATAL:  53300: sorry, too many clients already")) == refusal::none));
}

BOOST_AUTO_TEST_CASE(a_password_libpq_was_asked_for_and_did_not_have_is_an_authentication_refusal) {
  BOOST_TEST((why(libpq("fe_sendauth: no password supplied"), "prefer", true) == refusal::authentication));
}

// A server without TLS declines the TLS request, and libpq gives up before any handshake: that
// state decides, whatever language libpq's message is in (a program may set a message locale).
BOOST_AUTO_TEST_CASE(a_server_without_tls_is_a_refusal_where_tls_is_required_whatever_the_message_says) {
  for (const auto mode : {"require", "verify-ca", "verify-full"}) {
    for (const auto& text : {libpq("server does not support SSL, but SSL was required"),
                             libpq("Server unterstützt kein SSL, aber SSL wurde verlangt"), std::string{}}) {
      BOOST_TEST((why(text, mode, false, tls_reach::declined) == refusal::tls), mode << ": " << text);
    }
    // The message alone decides nothing: the state must say that the server declined.
    BOOST_TEST((why(libpq("server does not support SSL, but SSL was required"), mode) == refusal::none), mode);
    BOOST_TEST((why(libpq("server does not support SSL, but SSL was required"), mode, false, tls_reach::handshake) ==
                refusal::none),
               mode);
  }
  // A refusal of the server's own (a SQLSTATE) is its own, and a mode that does not require TLS
  // has no TLS refusal, whatever the state.
  BOOST_TEST((why(libpq("FATAL:  57P03: the database system is starting up"), "require", false, tls_reach::declined) ==
              refusal::none));
  BOOST_TEST((why("", "prefer", false, tls_reach::declined) == refusal::none));
}

BOOST_AUTO_TEST_CASE(a_certificate_that_does_not_verify_is_a_refusal_of_its_own) {
  for (const auto mode : {"require", "verify-ca", "verify-full"}) {
    // Another authority signed it (OpenSSL's reason), or it has expired.
    BOOST_TEST((why(libpq("SSL error: certificate verify failed"), mode, false, tls_reach::handshake) ==
                refusal::tls_verification),
               mode);
    // libpq may answer the TLS request, begin the handshake and fail it within one poll, so that
    // the state seen last is still the request's: the certificate decides (seen on PostgreSQL 17).
    BOOST_TEST((why(libpq("SSL error: certificate verify failed"), mode, false, tls_reach::declined) ==
                refusal::tls_verification),
               mode);
    // The trusted authorities' file is missing.
    BOOST_TEST((why(libpq("root certificate file \"/nowhere/root.crt\" does not exist\nEither provide the file or "
                          "change sslmode to disable server certificate verification."),
                    mode) == refusal::tls_verification),
               mode);
  }
  // verify-full: made out to another host name.
  BOOST_TEST((why(libpq("server certificate for \"localhost\" (and 1 other name) does not match host name "
                        "\"db.example\""),
                  "verify-full") == refusal::tls_verification));
  const auto refused = classify_refusal(libpq("SSL error: certificate verify failed"), false, "verify-full");
  BOOST_TEST(refused.sqlstate.empty(), "libpq decided it: the server sent no SQLSTATE");
}

// A handshake that the network or a restarting server cuts short is retried like any dropped
// connection, even where TLS is required: halting on it would turn a blip into an outage.
BOOST_AUTO_TEST_CASE(a_handshake_cut_short_is_transient) {
  for (const auto mode : {"require", "verify-ca", "verify-full"}) {
    for (const auto text : {"SSL SYSCALL error: EOF detected", "SSL SYSCALL error: Connection reset by peer",
                            "SSL error: unexpected eof while reading", "SSL connection has been closed unexpectedly",
                            "server closed the connection unexpectedly"}) {
      BOOST_TEST((why(libpq(text), mode, false, tls_reach::handshake) == refusal::none), mode << ": " << text);
    }
  }
  BOOST_TEST((why(libpq("Connection refused\n\tIs the server running on that host and accepting TCP/IP "
                        "connections?"),
                  "verify-full") == refusal::none));
}

// Without a sslmode that requires TLS, libpq falls back to a plain connection instead of failing
// on TLS, so no TLS text is a refusal there.
BOOST_AUTO_TEST_CASE(tls_texts_are_no_refusal_where_tls_is_optional) {
  for (const auto mode : {"disable", "allow", "prefer", ""}) {
    BOOST_TEST((why(libpq("SSL error: certificate verify failed"), mode) == refusal::none), mode);
    BOOST_TEST((why(libpq("server does not support SSL, but SSL was required"), mode) == refusal::none), mode);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // pq_connection_tests
