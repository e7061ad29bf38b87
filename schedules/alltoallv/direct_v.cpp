// The pieces the direct alltoallv patterns share (schedules/alltoallv/direct_v.hpp).

#include "schedules/alltoallv/direct_v.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace phasecheck::schedules::alltoallv {

void add_message(Phase& phase, const Traffic& traffic, Rank s, Rank d) {
  if (traffic.count(s, d) > 0) phase.add(s, d, Block{s, d, 0});
}

std::uint64_t heaviest(const Phase& phase, const Traffic& traffic) {
  std::uint64_t most = 0;
  for (const Transfer& t : phase.transfers())
    if (!t.local()) most = std::max(most, traffic.bytes(t.src, t.dst));
  return most;
}

const Traffic& traffic_of(const ScheduleHeader& header, std::string_view name) {
  if (!header.traffic)
    throw InputError(std::string(name) +
                     " is an alltoallv: it needs a traffic matrix (--traffic FILE)");
  return *header.traffic;
}

}  // namespace phasecheck::schedules::alltoallv
