// Writes an alltoallv schedule to standard output for tests/deploy/deploy-mpi.sh, made by the
// registered generator (schedules::generate) from a matrix whose off-diagonal counts are all
// non-zero and skewed (counts[s][d] = 1 + (3s + 5d) % 7; the diagonal 0 on even ranks), so that
// the deployed pattern is seen to serve calls whose counts have nothing to do with it.
//   phasecheck_v_schedule ALGORITHM RANKS PORTS [zero] [KEY=VALUE...]
// `zero` makes counts[p-1][0] 0: a schedule deploy must refuse.
#include <cstdio>
#include <iostream>
#include <string>

#include "core/error.hpp"
#include "io/json.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: phasecheck_v_schedule ALGORITHM RANKS PORTS [zero] [KEY=VALUE...]\n";
    return 2;
  }
  try {
    const auto p = static_cast<Rank>(std::stoul(argv[2]));
    const auto ports = static_cast<Rank>(std::stoul(argv[3]));
    Traffic traffic = zero_traffic(p, 4);
    for (Rank s = 0; s < p; ++s)
      for (Rank d = 0; d < p; ++d)
        traffic.counts[std::size_t{s} * p + d] = s == d && s % 2 == 0 ? 0 : 1 + (3 * s + 5 * d) % 7;
    Parameters params;
    for (int i = 4; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "zero" && p > 1) {
        traffic.counts[std::size_t{p - 1} * p] = 0;
        continue;
      }
      const auto eq = arg.find('=');
      if (eq == std::string::npos) throw InputError("not KEY=VALUE: " + arg);
      params.set(arg.substr(0, eq), arg.substr(eq + 1));
    }
    std::cout << io::schedule_to_json(schedules::generate(schedules::require_algorithm(argv[1]),
                                                          FullyConnected(p, ports), params,
                                                          SharedTraffic(traffic)));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "phasecheck_v_schedule: " << e.what() << "\n";
    return 2;
  }
}
