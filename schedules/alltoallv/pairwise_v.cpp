// pairwise-v: Open MPI's pairwise alltoallv, ompi_coll_base_alltoallv_intra_pairwise
// (ompi/mca/coll/base/coll_base_alltoallv.c, main at 8efebee745): step s = 0 .. p - 1 receives
// from rank - s (an Irecv, skipped when its count is 0), sends to rank + s (a blocking send,
// skipped when its count is 0) and waits. Step 0 is the message to itself (a local copy here). p
// phases; phase s costs the largest message rank -> rank + s.

#include "schedules/alltoallv/direct_v.hpp"
#include "schedules/alltoallv/rows.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules::alltoallv {
namespace {

constexpr std::string_view kName = "pairwise-v";
constexpr ParameterSpec kParameters[] = {kAlltoallvCollective};

void generate(const ScheduleHeader& header, const PhaseSink& out) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  const Traffic& traffic = traffic_of(header, kName);
  const Rank p = traffic.ranks;
  Phase phase;
  for (Rank step = 0; step < p; ++step) {
    phase.clear();
    phase.set_label(step == 0 ? "step 0: the message to itself"
                              : "step " + std::to_string(step) + ": send to rank + " +
                                    std::to_string(step) + ", receive from rank - " +
                                    std::to_string(step));
    for (Rank r = 0; r < p; ++r) add_message(phase, traffic, r, (r + step) % p);
    out(phase);
  }
}

Claims claims(const ScheduleHeader& header) {
  const Traffic& traffic = traffic_of(header, kName);
  const Rank p = traffic.ranks;
  std::uint64_t cost = 0;
  for (Rank step = 1; step < p; ++step) {
    std::uint64_t largest = 0;
    for (Rank r = 0; r < p; ++r) largest = std::max(largest, traffic.bytes(r, (r + step) % p));
    cost += largest;
  }
  Claims c{.phases = PhaseClaim::exactly(p, "steps 0 .. p - 1, step 0 the message to itself")};
  c.cost_bytes = PhaseClaim::exactly(
      cost, "the sum over steps s >= 1 of the largest message rank -> rank + s");
  return c;
}

}  // namespace

Algorithm pairwise_v() {
  return {kName,
          "step s = 0 .. p - 1: send to rank + s, receive from rank - s; zero counts skipped",
          "Open MPI coll_base_alltoallv.c, ompi_coll_base_alltoallv_intra_pairwise",
          kParameters,
          generate,
          claims,
          [](const ScheduleHeader&, const Topology& model) {
            return fully_connected_with(model, 1);
          }};
}

}  // namespace phasecheck::schedules::alltoallv
