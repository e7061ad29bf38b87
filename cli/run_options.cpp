#include "cli/run_options.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "experiments/mpi_run.hpp"
#include "programs/synchronization.hpp"

namespace phasecheck::cli {
namespace {

/// "100Mbps", "1Gbps", "12.5MBps", "10us": SimGrid's own units, checked here so that a typo is
/// exit 2; returns the value in the base unit (bytes per second, seconds).
double quantity(const std::string& text, const char* what,
                const std::vector<std::pair<std::string, double>>& units) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  for (const auto& [name, scale] : units)
    if (used > 0 && unit == name && value > 0 && std::isfinite(value)) return value * scale;
  std::string known;
  for (const auto& [name, scale] : units) known += (known.empty() ? "" : ", ") + name;
  throw InputError(std::string(what) + " '" + text + "': a positive number with a unit (" + known +
                   ")");
}

}  // namespace

void check_run_options(std::uint64_t bytes, unsigned repeats, double timeout) {
  if (bytes < 1 || bytes > (1u << 26))
    throw InputError("--bytes must be in [1, 67108864] (bytes per message)");
  if (repeats < 1 || repeats > 1000) throw InputError("--repeats must be in [1, 1000]");
  check_timeout(timeout);
}

double bandwidth_of(const std::string& text, const char* option) {
  return quantity(text, option,
                  {{"bps", 1 / 8.},
                   {"kbps", 1e3 / 8},
                   {"Mbps", 1e6 / 8},
                   {"Gbps", 1e9 / 8},
                   {"Bps", 1},
                   {"kBps", 1e3},
                   {"MBps", 1e6},
                   {"GBps", 1e9}});
}

void check_latency(const std::string& text) {
  quantity(text, "--latency", {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}});
}

void check_pairwise(const ScheduleHeader& header, const std::string& sync,
                    const std::string& command) {
  if (sync == "pairwise")
    check_ranks(header.ranks(), programs::kMaxSyncRanks, command + " --sync pairwise",
                "--sync barrier or none works up to " + std::to_string(experiments::kMaxRunRanks) +
                    " ranks");
}

}  // namespace phasecheck::cli
