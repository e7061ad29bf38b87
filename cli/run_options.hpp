#pragma once
/// The options `run`, `simulate` and `whatif experiment` share: message size, repeats, timeout,
/// SimGrid's bandwidth and latency, and the size limit of pair-wise synchronization.

#include <cstdint>
#include <string>

#include "core/schedule.hpp"

namespace phasecheck::cli {

/// --bytes in [1, 2^26], --repeats in [1, 1000], a valid --timeout; InputError otherwise.
void check_run_options(std::uint64_t bytes, unsigned repeats, double timeout);

/// "100Mbps", "1Gbps", "12.5MBps" (SimGrid's units) in bytes per second; a typo is InputError.
double bandwidth_of(const std::string& text, const char* option = "--bandwidth");

/// "10us", "1ms" (SimGrid's units); a typo is InputError.
void check_latency(const std::string& text);

/// Pair-wise synchronization is computed for at most kMaxSyncRanks ranks: refused from the
/// header, before the table is read and verified.
void check_pairwise(const ScheduleHeader& header, const std::string& sync,
                    const std::string& command);

}  // namespace phasecheck::cli
