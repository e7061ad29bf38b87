// MPICH's Bruck algorithms with radix k, pmodels/mpich main at
// 6a79bf6575c3b5b41cabbd3d59340634d6f9412d, one row for both collectives (--set
// collective=alltoall|allgather, radix = MPIR_CVAR_ALLTOALL_BRUCKS_KVAL / the allgather's k,
// default 2). nphases = the base-k digits of p - 1.
//
// alltoall, MPIR_Alltoall_intra_k_brucks (src/mpi/coll/alltoall/alltoall_intra_k_brucks.c): Step 1
// rotates sendbuf up by rank into recvbuf; per phase i (delta = k^i) and digit j = 1 .. k - 1 with
// delta j < p, brucks_sched_pup packs the blocks of recvbuf whose digit i is j into tmp_sbuf[j-1]
// and an Isend/Irecv pair exchanges it with rank + delta j / rank - delta j into tmp_rbuf[j-1];
// after the Waitall every tmp_rbuf is unpacked into the same blocks of recvbuf; Step 3 rotates
// recvbuf up by rank + 1 into tmp_buf and copies it back reversed. Scratch: tmp_buf (p slots),
// then tmp_sbuf[j-1] and tmp_rbuf[j-1] (p_of_k = k^(nphases-1) slots each, enough: no digit value
// occurs more often below p) for the digits used. So 3 + 3 nphases phases (packs, exchanges,
// unpacks), nphases communicating, C2 = the sum over phases of the largest pack.
//
// allgather, MPIR_Allgather_intra_k_brucks (src/mpi/coll/allgather/allgather_intra_k_brucks.c):
// rank 0 receives straight into recvbuf, the others into tmp_recvbuf (scratch, p slots); the own
// block goes to its slot 0; per phase i and j the first `count` blocks go to rank - delta j and
// delta j blocks arrive from rank + delta j at slot j delta (count = delta, cut in the last phase
// when p is not a power of k); then ranks other than 0 rotate tmp_recvbuf down by rank into
// recvbuf. So nphases + 2 phases and C2 = (k^(w-1) - 1)/(k - 1) + min(k^(w-1), p - k^(w-1)), w =
// nphases.
//
// Both have programs of their own (tmp buffers, packing, rotations). MPICH's k is any int >= 2,
// also above p (the steps with delta j >= p are skipped), so radix goes to 2^20 here. Both accept
// MPI_IN_PLACE (a copy of recvbuf first); not modelled here.

#include <algorithm>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "schedules/bruck.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kRadix{"radix", UInt{2, kMaxRanks}, Fixed{"2"},
                               "k: digits in base k, k - 1 exchanges per phase (MPICH's k)"};
constexpr ParameterSpec kParameters[] = {kCollective, kRadix};
constexpr std::string_view kName = "mpich-k-brucks";

struct Shape {
  Rank p = 1;
  std::uint64_t k = 2;
  unsigned nphases = 0;
  std::uint64_t p_of_k = 1;  ///< k^(nphases - 1): the size of each tmp_sbuf and tmp_rbuf
  /// Digits j in 1 .. k - 1 that phase with weight delta exchanges: delta j < p.
  std::uint64_t digits(std::uint64_t delta) const {
    return std::min<std::uint64_t>(k - 1, (p - 1) / delta);
  }
};

Shape checked_shape(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  Shape s{header.ranks(), read_uint(header.parameters, kRadix, header.ranks())};
  s.nphases = base_k_digits(s.p, s.k);
  for (unsigned i = 0; i + 1 < s.nphases; ++i) s.p_of_k *= s.k;
  return s;
}

/// brucks_sched_pup's walk: the offsets below p whose digit of weight `delta` is `digit`, as runs
/// (first offset, length) in increasing order.
template <class Run>
void for_each_digit_run(const Shape& s, std::uint64_t delta, std::uint64_t digit, const Run& run) {
  for (std::uint64_t offset = delta * digit; offset < s.p; offset += s.k * delta)
    run(offset, static_cast<std::uint32_t>(std::min<std::uint64_t>(delta, s.p - offset)));
}

constexpr const char* kStep1 = "Step 1: rotate sendbuf up by rank into recvbuf";

std::string phase_name(unsigned i, std::uint64_t delta) {
  return "phase " + std::to_string(i) + " (delta " + std::to_string(delta) + ")";
}
std::string pack_label(unsigned i, std::uint64_t delta) {
  return phase_name(i, delta) + ": pack digit j into tmp_sbuf[j-1]";
}
std::string exchange_label(unsigned i, std::uint64_t delta) {
  return phase_name(i, delta) + ": tmp_sbuf[j-1] to rank + delta j into its tmp_rbuf[j-1]";
}
std::string unpack_label(unsigned i, std::uint64_t delta) {
  return phase_name(i, delta) + ": unpack tmp_rbuf[j-1] into recvbuf";
}

Schedule alltoall_program(const ScheduleHeader& header, const Shape& shape) {
  const Rank p = shape.p;
  const std::uint64_t used = shape.digits(1);  // phase 0 uses the most digits
  check_program_memory(header, 4 * std::uint64_t{p} + 4 * p,
                       2 * std::uint64_t{p} + 2 * used * shape.p_of_k, kName);
  const auto tmp_sbuf = [&](std::uint64_t j) { return p + 2 * (j - 1) * shape.p_of_k; };
  const auto tmp_rbuf = [&](std::uint64_t j) { return tmp_sbuf(j) + shape.p_of_k; };
  Schedule s{header, {}};
  rotate_in(s, p, kStep1);
  std::uint64_t delta = 1;
  for (unsigned i = 0; i < shape.nphases; ++i, delta *= shape.k) {
    Phase pack(pack_label(i, delta));
    Phase exchange(exchange_label(i, delta));
    Phase unpack(unpack_label(i, delta));
    for (Rank rank = 0; rank < p; ++rank) {
      for (std::uint64_t j = 1; j <= shape.digits(delta); ++j) {
        const auto dst = static_cast<Rank>((rank + delta * j) % p);
        std::uint64_t packed = 0;
        for_each_digit_run(shape, delta, j, [&](std::uint64_t offset, std::uint32_t run) {
          pack.add(BufferOp{rank, rank, output(offset), scratch(tmp_sbuf(j) + packed), run});
          unpack.add(BufferOp{rank, rank, scratch(tmp_rbuf(j) + packed), output(offset), run});
          packed += run;
        });
        exchange.add(BufferOp{rank, dst, scratch(tmp_sbuf(j)), scratch(tmp_rbuf(j)),
                              static_cast<std::uint32_t>(packed)});
      }
    }
    s.phases.push_back(std::move(pack));
    s.phases.push_back(std::move(exchange));
    s.phases.push_back(std::move(unpack));
  }
  rotate_out(s, p, "Step 3");
  BufferLayout layout = natural_layout(Collective::alltoall, p, 1);
  layout.scratch = static_cast<std::uint32_t>(p + 2 * used * shape.p_of_k);
  s.header.buffers = layout;
  return s;
}

/// The blocks phase i (weight delta, the last phase when `last`) sends for digit j.
std::uint64_t allgather_count(const Shape& s, std::uint64_t delta, std::uint64_t j, bool last) {
  const bool power_of_k = [&] {
    std::uint64_t q = 1;
    for (unsigned i = 0; i < s.nphases; ++i) q *= s.k;
    return q == s.p;
  }();
  if (!last || power_of_k) return delta;
  const std::uint64_t left = s.p - delta * j;
  return j == s.k - 1 ? left : std::min(delta, left);
}

Schedule allgather_program(const ScheduleHeader& header, const Shape& shape) {
  const Rank p = shape.p;
  check_program_memory(header, 2 * shape.nphases * std::min<std::uint64_t>(shape.k, p) + 4,
                       2 * std::uint64_t{p}, kName);
  // Rank 0 receives in recvbuf itself; the others in tmp_recvbuf.
  const auto tmp = [](Rank rank, std::uint64_t i) { return rank == 0 ? output(i) : scratch(i); };
  Schedule s{header, {}};
  Phase step1("Step 1: the own block to the top of the receive buffer");
  for (Rank rank = 0; rank < p; ++rank) step1.add(BufferOp{rank, rank, input(0), tmp(rank, 0)});
  s.phases.push_back(std::move(step1));
  std::uint64_t delta = 1;
  for (unsigned i = 0; i < shape.nphases; ++i, delta *= shape.k) {
    Phase exchange("phase " + std::to_string(i) + ": the first blocks to rank - " +
                   std::to_string(delta) + " j, received at " + std::to_string(delta) + " j");
    for (Rank rank = 0; rank < p; ++rank)
      for (std::uint64_t j = 1; j <= shape.digits(delta); ++j) {
        const auto dst = static_cast<Rank>((rank + p - (delta * j) % p) % p);
        const auto count =
            static_cast<std::uint32_t>(allgather_count(shape, delta, j, i + 1 == shape.nphases));
        exchange.add(BufferOp{rank, dst, tmp(rank, 0), tmp(dst, j * delta), count});
      }
    s.phases.push_back(std::move(exchange));
  }
  Phase rotate("ranks other than 0: rotate tmp_recvbuf down by rank into recvbuf");
  for (Rank rank = 1; rank < p; ++rank) {
    rotate.add(BufferOp{rank, rank, scratch(p - rank), output(0), rank});
    rotate.add(BufferOp{rank, rank, scratch(0), output(rank), p - rank});
  }
  s.phases.push_back(std::move(rotate));
  BufferLayout layout = natural_layout(Collective::allgather, p, 1);
  layout.scratch = p;
  s.header.buffers = layout;
  return s;
}

/// alltoall_program's table, streamed (add_bruck_exchange): its local phases are empty phases.
void alltoall_table(const Shape& shape, const PhaseSink& out) {
  Phase phase;
  const auto local = [&](std::string label) {
    phase.clear();
    phase.set_label(std::move(label));
    out(phase);
  };
  local(kStep1);
  std::uint64_t delta = 1;
  for (unsigned i = 0; i < shape.nphases; ++i, delta *= shape.k) {
    local(pack_label(i, delta));
    phase.clear();
    phase.set_label(exchange_label(i, delta));
    add_bruck_exchange(phase, shape.p, shape.k, delta, shape.digits(delta));
    out(phase);
    local(unpack_label(i, delta));
  }
  local(rotate_out_label("Step 3"));
  local(invert_label("Step 3"));
}

Schedule program(const ScheduleHeader& header) {
  const Shape shape = checked_shape(header);
  return header.collective == Collective::alltoall ? alltoall_program(header, shape)
                                                   : allgather_program(header, shape);
}

Claims claims(const ScheduleHeader& header) {
  const Shape s = checked_shape(header);
  const std::string phases = "nphases = " + std::to_string(s.nphases) + " base-k digits of p - 1";
  if (header.collective == Collective::allgather) {
    // Phases before the last send k^i blocks; the last sends at most min(k^(w-1), p - k^(w-1)).
    const std::uint64_t c2 = s.nphases == 0 ? 0
                                            : (s.p_of_k - 1) / (s.k - 1) +
                                                  std::min<std::uint64_t>(s.p_of_k, s.p - s.p_of_k);
    Claims c{.phases = PhaseClaim::exactly(2 + std::size_t{s.nphases},
                                           phases + " between the own copy and the rotation")};
    c.c2 = PhaseClaim::exactly(c2, "k^i blocks per phase, the rest in the last");
    return c;
  }
  std::uint64_t c2 = 0;
  std::vector<std::size_t> round_end;
  std::uint64_t delta = 1;
  for (unsigned i = 0; i < s.nphases; ++i, delta *= s.k) {
    std::uint64_t largest = 0;
    for (std::uint64_t j = 1; j <= s.digits(delta); ++j)
      largest = std::max(
          largest, blocks_with_digit(s.p, static_cast<Rank>(s.k), delta, static_cast<Rank>(j)));
    c2 += largest;
    round_end.push_back(2 + 3 * std::size_t{i});  // Step 1, then pack, exchange, unpack
  }
  Claims c{.invariants = {rotation_invariant(s.p, static_cast<Rank>(s.k), std::move(round_end))},
           .phases = PhaseClaim::exactly(3 + 3 * std::size_t{s.nphases},
                                         phases + ", each a pack, an exchange and an unpack, "
                                                  "between Step 1 and Step 3's two rotations")};
  c.c2 = PhaseClaim::exactly(c2, "per phase the largest digit class (Bruck et al., Section 3.2)");
  return c;
}

}  // namespace

namespace {

/// The table: the alltoall's streamed, the allgather's derived from its program (p ops a phase).
void table(const ScheduleHeader& header, const PhaseSink& out) {
  if (header.collective == Collective::alltoall) return alltoall_table(checked_shape(header), out);
  table_of(program(header), out);
}

}  // namespace

Algorithm k_brucks() {
  Algorithm row = program_row(
      kName, "Bruck with radix k: per base-k digit, k - 1 concurrent exchanges",
      "MPICH main alltoall_intra_k_brucks.c and allgather_intra_k_brucks.c; Bruck et al., "
      "Sections 3 and 4",
      kParameters, program, claims, [](const ScheduleHeader& h, const Topology& model) {
        return fully_connected_with(model, read_uint(h.parameters, kRadix, h.ranks()) - 1);
      });
  row.generate = table;
  return row;
}

}  // namespace phasecheck::schedules::mpich
