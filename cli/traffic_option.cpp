// The --traffic option (cli/traffic_option.hpp).

#include "cli/traffic_option.hpp"

#include "cli/options.hpp"
#include "core/error.hpp"
#include "io/traffic.hpp"

namespace phasecheck::cli {

void TrafficOption::add(CLI::App& app) {
  app.add_option("--traffic", path,
                 "Traffic matrix of an alltoallv algorithm (phasecheck.traffic/1 JSON or CSV)");
  app.add_option("--element-bytes", element_bytes,
                 "Bytes per element of a CSV --traffic (default 1; a JSON file says its own)")
      ->check(natural());
}

SharedTraffic TrafficOption::read() const {
  if (path.empty()) {
    if (element_bytes) throw InputError("--element-bytes needs --traffic");
    return {};
  }
  return SharedTraffic(io::read_traffic_file(path, element_bytes));
}

}  // namespace phasecheck::cli
