// Open MPI's linear alltoall with a bounded number of outstanding requests,
// ompi_coll_base_alltoall_intra_linear_sync (ompi/mca/coll/base/coll_base_alltoall.c, v4.1.4;
// unchanged in main). It first copies sbuf[rank] to rbuf[rank], then posts N = max_requests
// irecvs from rank + 1, rank + 2, ... and N isends to rank - 1, rank - 2, ..., and replaces each
// completed request by the next one of its kind. N is coll_tuned_alltoall_algorithm_max_requests;
// 0 (Open MPI's default) or N >= p - 1 posts all p - 1 of each at once.
// Model: the sliding window as batches: batch b sends to rank - s and receives from rank + s for
// s in (bN, (b + 1)N], so every rank has at most N sends and N receives outstanding (the claim
// max_requests = 2N); the real run may start a request of batch b + 1 before batch b has ended.
// Phases: the local copy, then ceil((p - 1) / N) batches; C2 = the number of batches (each pair
// exchanges one block).

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-linear-sync";
constexpr ParameterSpec kMaxRequests{
    "max_requests", UInt{0, RankCount{}}, Fixed{"0"},
    "N: irecvs and isends outstanding at once, each (coll_tuned_alltoall_algorithm_max_requests; "
    "0: no limit, p - 1)"};
constexpr ParameterSpec kParameters[] = {kAlltoallCollective, kMaxRequests};

struct Options {
  Rank p = 1;
  Rank window = 0;  ///< requests of each kind at once: total_reqs in Open MPI
};

Options options(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  const auto n = read_uint(header.parameters, kMaxRequests, p);
  // total_reqs = (max_outstanding_reqs > size - 1 || max_outstanding_reqs <= 0) ? size - 1 : N
  return {p, static_cast<Rank>(n == 0 || n > p - 1 ? p - 1 : n)};
}

std::uint64_t batches(const Options& o) {
  return o.window == 0 ? 0 : (std::uint64_t{o.p} - 1 + o.window - 1) / o.window;
}

Schedule program(const ScheduleHeader& header) {
  const Options o = options(header);
  check_program_memory(kName, o.p, std::uint64_t{o.p} * o.p);
  Schedule s = empty_program(header, natural_layout(Collective::alltoall, o.p, 1));
  Phase self("local copy sbuf[rank] -> rbuf[rank]");
  for (Rank rank = 0; rank < o.p; ++rank) self.add(BufferOp{rank, rank, sbuf(rank), rbuf(rank), 1});
  s.phases.push_back(std::move(self));
  for (std::uint64_t b = 0; b < batches(o); ++b) {
    const std::uint64_t first = b * o.window + 1;
    const std::uint64_t last = std::min<std::uint64_t>(first + o.window - 1, o.p - 1);
    Phase batch("requests " + std::to_string(first) + " .. " + std::to_string(last) +
                ": isend to rank - s, irecv from rank + s");
    for (Rank rank = 0; rank < o.p; ++rank)
      for (std::uint64_t step = first; step <= last; ++step) {
        const Rank si = shifted(rank, -static_cast<std::int64_t>(step), o.p);
        // si receives it from its rank + step, into rbuf[rank].
        batch.add(BufferOp{rank, si, sbuf(si), rbuf(rank), 1});
      }
    s.phases.push_back(std::move(batch));
  }
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Options o = options(header);
  const std::uint64_t n = batches(o);
  Claims c{.phases = PhaseClaim::exactly(1 + n, "the local copy, then ceil((p - 1) / N) batches")};
  c.c2 = PhaseClaim::exactly(n, "one block per pair, ceil((p - 1) / N) batches");
  c.max_requests = {2 * std::max<Rank>(o.window, 1),
                    "N = " + std::to_string(o.window) + " irecvs and N isends (total_reqs)"};
  return c;
}

bool contention_free_on(const ScheduleHeader& header, const Topology& model) {
  return has_ports(model, std::max<Rank>(options(header).window, 1));
}

}  // namespace

Algorithm linear_sync() {
  return row({kName, "self copy, then N irecvs from rank + s and N isends to rank - s at a time",
              "Open MPI 4.1.4 coll_base_alltoall.c, ompi_coll_base_alltoall_intra_linear_sync",
              kParameters, program, claims, contention_free_on});
}

}  // namespace phasecheck::schedules::ompi
