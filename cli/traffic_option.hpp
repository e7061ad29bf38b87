#pragma once
/// `--traffic FILE` and `--element-bytes B`: an alltoallv's traffic matrix for the commands that
/// take a machine (generate, check, bounds, cost), read once by io::read_traffic_file.

#include <cstdint>
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "core/traffic.hpp"

namespace phasecheck::cli {

struct TrafficOption {
  std::string path;  ///< empty: none
  std::optional<std::uint64_t> element_bytes;

  void add(CLI::App& app);
  /// The matrix, or none without --traffic (InputError for --element-bytes alone).
  SharedTraffic read() const;
};

}  // namespace phasecheck::cli
