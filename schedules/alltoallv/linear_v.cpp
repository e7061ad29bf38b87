// linear-v: Open MPI's basic linear alltoallv, ompi_coll_base_alltoallv_intra_basic_linear
// (ompi/mca/coll/base/coll_base_alltoallv.c, main at 8efebee745; the same in v4.1.4): the message
// to itself first (ompi_datatype_sndrcv, a local copy), then every receive and every send to the
// others posted at once and one Waitall, each skipped when its count is 0. One phase: every rank
// sends each of its non-empty messages in it, so the phase costs the largest message.

#include "schedules/alltoallv/direct_v.hpp"
#include "schedules/alltoallv/rows.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules::alltoallv {
namespace {

constexpr std::string_view kName = "linear-v";
constexpr ParameterSpec kParameters[] = {kAlltoallvCollective};

Phase the_phase(const Traffic& traffic) {
  Phase phase("the self copy, then every Irecv and Isend of a non-empty message, one Waitall");
  for (Rank r = 0; r < traffic.ranks; ++r) add_message(phase, traffic, r, r);
  for (Rank r = 0; r < traffic.ranks; ++r)
    for (Rank d = 0; d < traffic.ranks; ++d)
      if (d != r) add_message(phase, traffic, r, d);
  return phase;
}

void generate(const ScheduleHeader& header, const PhaseSink& out) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  out(the_phase(traffic_of(header, kName)));
}

Claims claims(const ScheduleHeader& header) {
  const Traffic& traffic = traffic_of(header, kName);
  std::uint64_t largest = 0;
  for (Rank s = 0; s < traffic.ranks; ++s)
    for (Rank d = 0; d < traffic.ranks; ++d)
      if (s != d) largest = std::max(largest, traffic.bytes(s, d));
  Claims c{.phases = PhaseClaim::exactly(1, "one Waitall over every message")};
  c.cost_bytes = PhaseClaim::exactly(largest, "one phase: the largest message");
  return c;
}

}  // namespace

Algorithm linear_v() {
  return {kName,
          "the self copy, then every non-empty message posted at once and one Waitall",
          "Open MPI coll_base_alltoallv.c, ompi_coll_base_alltoallv_intra_basic_linear",
          kParameters,
          generate,
          claims,
          [](const ScheduleHeader& h, const Topology& model) {
            return fully_connected_with(model, h.ranks());
          }};
}

}  // namespace phasecheck::schedules::alltoallv
