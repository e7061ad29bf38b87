// Open MPI's radix-k Bruck allgather, ompi_coll_base_allgather_intra_k_bruck (ompi/mca/coll/base/
// coll_base_allgather.c, commit 688b727f3d "add bruck method for allgather for any radix k",
// in main and v6.0; read at main 8efebee745; coll_tuned's "bruck-k-fanout"). sbuf goes to rbuf[0];
// at distance 1, k, k^2, ... < p rank posts, for j = 1 .. k - 1 with distance j < p, an irecv of
// recvcount blocks from rank + distance j into rbuf[distance j] and an isend of rbuf[0 ..
// recvcount) to rank - distance j, and waits for all: recvcount = distance when
// distance <= p / k (integer division), else min(distance, p - distance j). Then every rank but 0
// rotates rbuf through tmp_buf (p - rank blocks): rbuf[0 .. p - rank) to tmp_buf, rbuf[p - rank
// ..] to rbuf[0 ..], tmp_buf to rbuf[rank ..]. Phases: the copy, ceil(log_k p) rounds and the
// three copies of the rotation; C2 = the sum over rounds of the largest recvcount.

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-bruck-k";
constexpr ParameterSpec kRadix{"radix", UInt{2, RankCount{}}, Fixed{"2"},
                               "k: the fanout, k - 1 partners per round (coll_tuned "
                               "allgather_algorithm_radix)"};
constexpr ParameterSpec kParameters[] = {kAllgatherCollective, kRadix};

struct Options {
  Rank p = 1;
  std::uint64_t radix = 2;
};

Options options(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  return {header.ranks(), read_uint(header.parameters, kRadix, header.ranks())};
}

std::uint64_t recvcount(const Options& o, std::uint64_t distance, std::uint64_t j) {
  if (distance <= o.p / o.radix) return distance;
  return std::min<std::uint64_t>(distance, o.p - distance * j);
}

/// Calls round(distance) for distance = 1, k, k^2, ... < p.
template <class Round>
void for_each_round(const Options& o, const Round& round) {
  for (std::uint64_t distance = 1; distance < o.p; distance *= o.radix) round(distance);
}

Schedule program(const ScheduleHeader& header) {
  const Options o = options(header);
  const Rank p = o.p;
  check_program_memory(kName, p, 4 * std::uint64_t{p} * std::min<std::uint64_t>(o.radix, p));
  BufferLayout layout = natural_layout(Collective::allgather, p, 1);
  layout.scratch = p - 1;  // tmp_buf: p - rank blocks on every rank but 0
  Schedule s = empty_program(header, layout);
  Phase copy("local copy sbuf -> rbuf[0]");
  for (Rank rank = 0; rank < p; ++rank) copy.add(BufferOp{rank, rank, sbuf(0), rbuf(0), 1});
  s.phases.push_back(std::move(copy));
  for_each_round(o, [&](std::uint64_t distance) {
    Phase round("distance " + std::to_string(distance) + ": rbuf[0 ..] to rank - " +
                std::to_string(distance) + " j, j = 1 .. k - 1");
    for (Rank rank = 0; rank < p; ++rank)
      for (std::uint64_t j = 1; j < o.radix && distance * j < p; ++j) {
        const auto dst = shifted(rank, -static_cast<std::int64_t>(distance * j), p);
        round.add(BufferOp{rank, dst, rbuf(0), rbuf(distance * j),
                           static_cast<std::uint32_t>(recvcount(o, distance, j))});
      }
    s.phases.push_back(std::move(round));
  });
  Phase save("1. rbuf[0 .. p - rank) -> tmp_buf");
  Phase move("2. rbuf[p - rank ..] -> rbuf[0 ..]");
  Phase back("3. tmp_buf -> rbuf[rank ..]");
  for (Rank rank = 1; rank < p; ++rank) {
    save.add(BufferOp{rank, rank, rbuf(0), tmpbuf(0), p - rank});
    move.add(BufferOp{rank, rank, rbuf(p - rank), rbuf(0), rank});
    back.add(BufferOp{rank, rank, tmpbuf(0), rbuf(rank), p - rank});
  }
  s.phases.push_back(std::move(save));
  s.phases.push_back(std::move(move));
  s.phases.push_back(std::move(back));
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Options o = options(header);
  std::size_t rounds = 0;
  std::uint64_t c2 = 0;
  for_each_round(o, [&](std::uint64_t distance) {
    ++rounds;
    std::uint64_t largest = 0;
    for (std::uint64_t j = 1; j < o.radix && distance * j < o.p; ++j)
      largest = std::max(largest, recvcount(o, distance, j));
    c2 += largest;
  });
  Claims c{.phases = PhaseClaim::exactly(4 + rounds,
                                         "the copy, ceil(log_k p) = " + std::to_string(rounds) +
                                             " rounds, the three copies of the rotation")};
  c.c2 = PhaseClaim::exactly(c2, "per round the largest recvcount");
  return c;
}

bool contention_free_on(const ScheduleHeader& header, const Topology& model) {
  const Options o = options(header);
  return has_ports(model,
                   std::max<std::uint64_t>(1, std::min<std::uint64_t>(o.radix - 1, o.p - 1)));
}

}  // namespace

Algorithm bruck_k() {
  return row({kName, "radix-k Bruck: k - 1 isends of rbuf[0 ..] per round, rotate at the end",
              "Open MPI main/6.0 coll_base_allgather.c, ompi_coll_base_allgather_intra_k_bruck "
              "(688b727f3d)",
              kParameters, program, claims, contention_free_on});
}

}  // namespace phasecheck::schedules::ompi
