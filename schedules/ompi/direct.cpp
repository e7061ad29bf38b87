// Open MPI's direct-messaging allgather, ompi_coll_base_allgather_direct_messaging
// (ompi/mca/coll/base/coll_base_allgather.c, main and v6.0; read at main 8efebee745; coll_tuned's
// allgather algorithm 8). sbuf goes to rbuf[rank]; then for i = 1 .. p - 1 an irecv from
// rank + i into rbuf[rank + i] and an isend of sbuf to rank + i, all outstanding, one wait_all.
// Its sends read sbuf, not the copy, so the copy and the messages are one phase; C2 = 1.

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-direct";
constexpr ParameterSpec kParameters[] = {kAllgatherCollective};

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  check_program_memory(kName, p, std::uint64_t{p} * p);
  Schedule s = empty_program(header, natural_layout(Collective::allgather, p, 1));
  Phase all("copy sbuf -> rbuf[rank]; isend sbuf to and irecv from rank + i, i = 1 .. p - 1");
  for (Rank rank = 0; rank < p; ++rank) {
    all.add(BufferOp{rank, rank, sbuf(0), rbuf(rank), 1});
    for (Rank i = 1; i < p; ++i)
      all.add(BufferOp{rank, shifted(rank, i, p), sbuf(0), rbuf(rank), 1});
  }
  s.phases.push_back(std::move(all));
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  Claims c{.phases = PhaseClaim::exactly(1, "every message outstanding at once, one wait_all")};
  c.c2 = PhaseClaim::exactly(p > 1 ? 1 : 0, "one block per message");
  c.max_requests = {2 * std::max<Rank>(p - 1, 1), "reqs_needed = 2 (p - 1)"};
  return c;
}

bool contention_free_on(const ScheduleHeader& header, const Topology& model) {
  return has_ports(model, std::max<Rank>(header.ranks() - 1, 1));
}

}  // namespace

Algorithm direct() {
  return row({kName, "isend sbuf to every rank at once, one wait_all (6.0)",
              "Open MPI main/6.0 coll_base_allgather.c, ompi_coll_base_allgather_direct_messaging",
              kParameters, program, claims, contention_free_on});
}

}  // namespace phasecheck::schedules::ompi
