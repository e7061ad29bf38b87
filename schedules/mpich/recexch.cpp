// MPICH's recursive-exchange allgather, MPIR_Allgather_intra_recexch (src/mpi/coll/allgather/
// allgather_intra_recexch.c) with its neighbour and offset helpers MPII_Recexchalgo_get_neighbors,
// _get_count_and_offset and _reverse_digits_step2 (src/mpi/coll/algorithms/recexchalgo/
// recexchalgo.c), pmodels/mpich main at 6a79bf6575c3b5b41cabbd3d59340634d6f9412d. Radix k
// (MPIR_CVAR_ALLGATHER_RECEXCH_KVAL, default 2; cut to p, or 2, when p < k). p_of_k = the largest
// power of k <= p ranks take part in Step 2; of the first T = rem k / (k - 1) ranks (rem = p -
// p_of_k) each group of k has k - 1 that only send their block to the group's last (Step 1; a
// group cut by T sends to rank T) and receive the whole result from it (Step 3). Step 2 has
// log_k(p_of_k) phases; in phase j a participant sends the blocks it represents at level j
// (get_count_and_offset: a run of recvbuf) to its k - 1 neighbours, which differ from it in
// base-k digit j of its Step-2 rank (distance doubling, recexch_type = 0) or digit
// log_k(p_of_k) - 1 - j (distance halving, recexch_type = 1: first a swap with the digit-reversed
// partner so the runs come out in order). single_phase_recv only decides whether the receives of
// the next phase are posted before this phase's sends: the same phases and sends, so the table and
// program do not change with it (it is accepted and recorded in the header). Every block is sent
// from and received into recvbuf at its origin's index; the row has its own program for those
// runs and the Step-1/Step-3 copies. One deliberate difference: where MPICH sends a rank blocks it
// holds already (Step 3 returns a non-participant's own block; the halving variant, non-minimal by
// design, returns a participant's level-0 run), the model leaves them out of the run (add_run),
// since the verifier counts a block delivered twice as a duplicate; Step 3's receiver copies its
// own block.
// Claims: the exact phase count (the own copy, Step 1 when rem
// > 0, the halving swap when Step 2 has >= 2 phases, the Step-2 phases, Step 3 when rem > 0).

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kRadix{"radix", UInt{2, kMaxRanks}, Fixed{"2"},
                               "k: base-k digits, k - 1 neighbours per phase (RECEXCH_KVAL)"};
constexpr std::string_view kDistances[] = {"doubling", "halving"};
constexpr ParameterSpec kDistance{"distance", Choice{kDistances}, Fixed{"doubling"},
                                  "recexch_doubling or recexch_halving (recexch_type 0 or 1)"};
constexpr ParameterSpec kSinglePhaseRecv{
    "single_phase_recv", Boolean{}, Fixed{"false"},
    "post the receives of one phase at a time (RECEXCH_SINGLE_PHASE_RECV): same sends"};
constexpr ParameterSpec kParameters[] = {kAllgatherCollective, kRadix, kDistance, kSinglePhaseRecv};
constexpr std::string_view kName = "mpich-recexch";

struct Recexch {
  std::int64_t p = 1;
  std::int64_t k = 2;       ///< after the cut to p
  std::int64_t p_of_k = 1;  ///< the largest power of k <= p
  unsigned nphases = 0;     ///< log_k(p_of_k)
  std::int64_t rem = 0, T = 0;
  bool halving = false;

  std::int64_t step2rank(std::int64_t rank) const { return rank < T ? rank / k : rank - rem; }
  std::int64_t origrank(std::int64_t r) const {
    return r < rem / (k - 1) ? r * k + k - 1 : r + rem;
  }
  bool participates(std::int64_t rank) const { return rank >= T || rank % k == k - 1; }
  /// Step 1's receiver for a rank that does not take part.
  std::int64_t step1_sendto(std::int64_t rank) const {
    const std::int64_t to = rank + (k - 1 - rank % k);
    return to > T - 1 ? T : to;
  }
  /// get_count_and_offset: the run of recvbuf `rank` represents at level `phase`.
  std::pair<std::int64_t, std::int64_t> offset_and_count(std::int64_t rank, unsigned phase) const {
    std::int64_t power = 1;
    for (unsigned i = 0; i < phase; ++i) power *= k;
    const std::int64_t min = (step2rank(rank) / power) * power - 1;
    const std::int64_t max = min + power;
    const std::int64_t orig_min = min >= 0 ? origrank(min) : min;
    return {orig_min + 1, origrank(max) - orig_min};
  }
  std::int64_t reverse_digits(std::int64_t rank) const {
    std::int64_t r = step2rank(rank), reversed = 0;
    for (unsigned i = 0; i < nphases; ++i, r /= k) reversed = reversed * k + r % k;
    return origrank(reversed);
  }
  /// The k - 1 neighbours of participant `rank` that differ in digit `digit` of its Step-2 rank.
  std::vector<std::int64_t> neighbours(std::int64_t rank, unsigned digit) const {
    std::int64_t power = 1;
    for (unsigned i = 0; i < digit; ++i) power *= k;
    const std::int64_t newrank = step2rank(rank), own = (newrank / power) % k;
    std::vector<std::int64_t> out;
    for (std::int64_t i = 0; i < k; ++i)
      if (i != own) out.push_back(origrank(newrank + (i - own) * power));
    return out;
  }
};

Recexch checked_shape(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  Recexch s;
  s.p = header.ranks();
  s.k = static_cast<std::int64_t>(read_uint(header.parameters, kRadix, header.ranks()));
  if (s.p < s.k) s.k = s.p > 2 ? s.p : 2;
  while (s.p_of_k * s.k <= s.p) {
    s.p_of_k *= s.k;
    ++s.nphases;
  }
  s.rem = s.p - s.p_of_k;
  s.T = s.rem * s.k / (s.k - 1);
  s.halving = read_choice(header.parameters, kDistance) == "halving";
  read_bool(header.parameters, kSinglePhaseRecv);
  return s;
}

/// Sends recvbuf[offset, offset + count) of `from` into the same slots of `to`, but the blocks
/// [held, held_end) that `to` holds already. MPICH sends them (Step 3 returns a non-participant's
/// own block; the halving variant's Step 2, non-minimal by design, returns a participant's level-0
/// run: its own block and its Step-1 senders'); the verifier counts a block delivered twice as a
/// duplicate, so the model sends the runs around them (docs/algorithms.md counts them).
void add_run(Phase& phase, Rank from, Rank to, std::int64_t offset, std::int64_t count,
             std::int64_t held, std::int64_t held_end) {
  const auto send = [&](std::int64_t first, std::int64_t end) {
    if (first < end)
      phase.add(BufferOp{from, to, output(static_cast<std::uint64_t>(first)),
                         output(static_cast<std::uint64_t>(first)),
                         static_cast<std::uint32_t>(end - first)});
  };
  const std::int64_t end = offset + count;
  send(offset, std::min(end, held));
  send(std::max(offset, held_end), end);
}

/// add_run to participant `to`, leaving out its level-0 run.
void add_run_to_participant(const Recexch& s, Phase& phase, Rank from, Rank to, std::int64_t offset,
                            std::int64_t count) {
  const auto [held, held_count] = s.offset_and_count(to, 0);
  add_run(phase, from, to, offset, count, held, held + held_count);
}

Schedule program(const ScheduleHeader& header) {
  const Recexch s = checked_shape(header);
  const auto p = static_cast<Rank>(s.p);
  check_program_memory(header, 2 + std::uint64_t{s.nphases} * (s.k - 1), p, kName);
  Schedule out{header, {}};
  Phase copy("participants copy their block into recvbuf[rank]");
  for (Rank rank = 0; rank < p; ++rank)
    if (s.participates(rank)) copy.add(BufferOp{rank, rank, input(0), output(rank)});
  out.phases.push_back(std::move(copy));
  if (s.rem > 0) {
    Phase step1("Step 1: the first T ranks' non-participants send their block to a participant");
    for (Rank rank = 0; rank < p; ++rank)
      if (!s.participates(rank))
        step1.add(BufferOp{rank, static_cast<Rank>(s.step1_sendto(rank)), input(0), output(rank)});
    out.phases.push_back(std::move(step1));
  }
  if (s.halving && s.nphases >= 2) {
    Phase swap("distance halving: swap level-0 runs with the digit-reversed partner");
    for (Rank rank = 0; rank < p; ++rank) {
      if (!s.participates(rank)) continue;
      const std::int64_t partner = s.reverse_digits(rank);
      if (partner == rank) continue;
      const auto [offset, count] = s.offset_and_count(rank, 0);
      add_run_to_participant(s, swap, rank, static_cast<Rank>(partner), offset, count);
    }
    out.phases.push_back(std::move(swap));
  }
  for (unsigned j = 0; j < s.nphases; ++j) {
    const unsigned digit = s.halving ? s.nphases - 1 - j : j;
    Phase step("Step 2, phase " + std::to_string(j) + ": level-" + std::to_string(j) +
               " runs to the neighbours in digit " + std::to_string(digit));
    for (Rank rank = 0; rank < p; ++rank) {
      if (!s.participates(rank)) continue;
      const std::int64_t for_offset = s.halving ? s.reverse_digits(rank) : rank;
      const auto [offset, count] = s.offset_and_count(for_offset, j);
      for (const std::int64_t nbr : s.neighbours(rank, digit))
        add_run_to_participant(s, step, rank, static_cast<Rank>(nbr), offset, count);
    }
    out.phases.push_back(std::move(step));
  }
  if (s.rem > 0) {
    Phase step3("Step 3: participants send recvbuf to their Step-1 senders, but their own block");
    for (Rank rank = 0; rank < p; ++rank) {
      if (s.participates(rank)) continue;
      // MPICH sends all p blocks, the receiver's own too (it never copied it into recvbuf): here
      // the receiver copies its own block instead.
      add_run(step3, static_cast<Rank>(s.step1_sendto(rank)), rank, 0, s.p, rank, rank + 1);
      step3.add(BufferOp{rank, rank, input(0), output(rank)});
    }
    out.phases.push_back(std::move(step3));
  }
  out.header.buffers = natural_layout(Collective::allgather, p, 1);
  return out;
}

Claims claims(const ScheduleHeader& header) {
  const Recexch s = checked_shape(header);
  const std::size_t steps =
      1 + (s.rem > 0 ? 2 : 0) + (s.halving && s.nphases >= 2 ? 1 : 0) + s.nphases;
  return Claims{.phases = PhaseClaim::exactly(
                    steps, "the own copy, log_k(p_of_k) = " + std::to_string(s.nphases) +
                               " Step-2 phases, Steps 1 and 3 when p_of_k < p, and the "
                               "halving variant's swap")};
}

}  // namespace

Algorithm recexch() {
  return program_row(
      kName, "recursive exchange, radix k: Step 1 folds p - k^n ranks in, k - 1 neighbours a phase",
      "MPICH main allgather_intra_recexch.c, recexchalgo.c; Thakur et al. 2005 (doubling), Sack "
      "et al. 2012 (halving)",
      kParameters, program, claims, [](const ScheduleHeader& h, const Topology& model) {
        return fully_connected_with(model, read_uint(h.parameters, kRadix, h.ranks()) - 1);
      });
}

}  // namespace phasecheck::schedules::mpich
