// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-kafka-mock: the Kafka cluster of tests/integration/examples/kafka.cpp. Debian packages
// no Kafka broker, so the test runs the mock cluster librdkafka carries (rdkafka_mock.h) in a
// process of its own, which outlives every run of the sink under test (the sink is SIGKILLed and
// restarted against it). It starts three mock brokers, creates the topics named on its command line
// (`NAME:PARTITIONS`, replicated three times), prints its bootstrap servers on one line, and then
// obeys one command per line on stdin, answering each with `ok` (or `error`) on one line:
//
//   down ID | up ID          takes broker ID (1 to 3) down, or brings it back
//   down all | up all        the same for every broker
//   fail API CODE COUNT      the next COUNT requests of Kafka API key API fail with error CODE
//                            (e.g. `fail 26 47 1`: the next EndTxn answers INVALID_PRODUCER_EPOCH)
//   quit                     ends the cluster
//
// It ends when stdin closes, so it never outlives the test. What the mock does not do (read_committed
// filtering, fencing a zombie producer) is in docs/scale_out.md.

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int brokers = 3;

auto set_all(rd_kafka_mock_cluster_t* cluster, bool up) -> rd_kafka_resp_err_t {
  for (int id = 1; id <= brokers; ++id) {
    const auto err = up ? rd_kafka_mock_broker_set_up(cluster, id) : rd_kafka_mock_broker_set_down(cluster, id);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return err;
  }
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

// One command line; false when it is not understood.
auto obey(rd_kafka_mock_cluster_t* cluster, const std::string& line, bool& quit) -> bool {
  std::istringstream in{line};
  std::string verb;
  std::string what;
  in >> verb;
  if (verb == "quit") {
    quit = true;
    return true;
  }
  if (verb == "down" || verb == "up") {
    if (!(in >> what)) return false;
    const bool up = verb == "up";
    if (what == "all") return set_all(cluster, up) == RD_KAFKA_RESP_ERR_NO_ERROR;
    const int id = std::atoi(what.c_str());
    if (id < 1 || id > brokers) return false;
    return (up ? rd_kafka_mock_broker_set_up(cluster, id) : rd_kafka_mock_broker_set_down(cluster, id)) ==
           RD_KAFKA_RESP_ERR_NO_ERROR;
  }
  if (verb == "fail") {
    int api = 0;
    int code = 0;
    int count = 0;
    if (!(in >> api >> code >> count) || count < 1 || count > 1000) return false;
    const std::vector<rd_kafka_resp_err_t> errors(static_cast<std::size_t>(count),
                                                  static_cast<rd_kafka_resp_err_t>(code));
    rd_kafka_mock_push_request_errors_array(cluster, static_cast<std::int16_t>(api), errors.size(), errors.data());
    return true;
  }
  return false;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // The handle only carries the cluster: it talks to no broker itself, and says nothing.
  rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof errstr);
  rd_kafka_t* handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (handle == nullptr) {
    std::fprintf(stderr, "replicant-kafka-mock: could not create a client handle\n");
    return 1;
  }
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(handle, brokers);
  if (cluster == nullptr) {
    std::fprintf(stderr, "replicant-kafka-mock: could not create the mock cluster\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string spec = argv[i];
    const auto colon = spec.rfind(':');
    const int partitions = colon == std::string::npos ? 1 : std::atoi(spec.c_str() + colon + 1);
    const std::string name = spec.substr(0, colon);
    if (name.empty() || partitions < 1 ||
        rd_kafka_mock_topic_create(cluster, name.c_str(), partitions, brokers) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::fprintf(stderr, "replicant-kafka-mock: could not create topic %d\n", i);
      return 1;
    }
  }
  std::cout << rd_kafka_mock_cluster_bootstraps(cluster) << std::endl;
  bool quit = false;
  for (std::string line; !quit && std::getline(std::cin, line);) {
    std::cout << (obey(cluster, line, quit) ? "ok" : "error") << std::endl;
  }
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(handle);
  return 0;
}
