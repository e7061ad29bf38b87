// MPICH's circulant-graph allgather, MPIR_Allgather_intra_circ_graph (src/mpi/coll/allgather/
// allgather_intra_circ_graph.c) with its schedule from MPII_circ_graph_create_all, gen_skips and
// gen_rsched (src/mpi/coll/algorithms/circ_graph/circ_graph.c), pmodels/mpich main at
// 6a79bf6575c3b5b41cabbd3d59340634d6f9412d; Träff, "Optimal broadcast and allgather on circulant
// graphs" (ACM TOPC 2025, doi 10.1145/3735139). q = ceil(log2 p) (1 for p = 1); Skip[q] = p,
// Skip[k] = ceil(Skip[k+1] / 2); R(r)[k] is the block rank r receives in round k of a broadcast
// from root 0 (gen_rsched: the largest unused baseblock between r - Skip[k+1] and r - Skip[k]), and
// S(r)[k] = R(r + Skip[k])[k]. The allgather runs the broadcast once per root: in round k rank
// `rank` sends to rank + Skip[k] root's block whenever S(rank - root)[k] >= 0 and the peer is not
// the root. Modelled for one chunk (a contribution of at most MPIR_CVAR_CIRC_GRAPH_CHUNK_SIZE =
// 128 KiB: n = 1, offset 0, so a non-negative block is block 0), where the loop runs the q rounds
// once; the request queue (MPII_cga_request_queue) only bounds what is in flight and is not a
// phase here. Its own program: the own copy into recvbuf[rank] first, then per round one op per
// block, recvbuf[root] to the peer's recvbuf[root] (MPICH sends each block separately). Claims:
// exactly q + 1 phases and C2 = p - 1, the optimum (checked for p <= 200).

#include <algorithm>
#include <vector>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kParameters[] = {kAllgatherCollective};
constexpr std::string_view kName = "mpich-circulant";

/// MPII_circ_graph for every rank: Skip and R (p x q).
struct CircGraph {
  int p = 1;
  int q = 1;
  std::vector<int> skip;  ///< q + 1 entries
  std::vector<int> R;     ///< R[r * q + k]

  int send_block(int r, int k) const { return R[((r + skip[k]) % p) * q + k]; }

  int baseblock(int r) const {
    if (r == 0) return q;
    int rt = r;
    for (int k = q - 1; k >= 0; --k)
      if (rt >= skip[k]) {
        rt -= skip[k];
        if (rt == 0) return k;
      }
    throw std::logic_error("circ_graph: no baseblock");
  }

  /// gen_rsched: a depth-first walk over sums of skips (the stack), in decreasing skips, taking
  /// for round k the largest baseblock e not used yet whose sum lands in (r - Skip[k+1], r -
  /// Skip[k]] (shifted by p to avoid the modulo).
  void receive_schedule(int r, int* out) const {
    // One rank (q = 1, Skip = {1, 1}): its one round sends nothing, and the walk below would
    // run past the list's ends (the fuzz-verifier finding of issue 36).
    if (p == 1) return;
    const int b = baseblock(r);
    std::vector<int> next(q + 1), prev(q + 1), stack;
    for (int i = 0; i <= q; ++i) {
      next[i] = i - 1;
      prev[i] = i + 1;
    }
    prev[q] = -1;
    const auto remove = [&](int e) {
      if (prev[e] != -1) next[prev[e]] = next[e];
      if (next[e] != -1) prev[next[e]] = prev[e];
    };
    remove(b);
    int k = 0, rt = 0, e = q;
    int low = r + p - skip[k + 1], high = r + p - skip[k];
    const auto push = [&] {
      rt += skip[e];
      stack.push_back(e);
    };
    const auto pop = [&] {
      rt -= skip[stack.back()];
      stack.pop_back();
    };
    push();
    while (k < q) {
      if (rt < low || (rt == low && next[e] > -1)) {
        e = next[e];
        push();
      } else if (rt > high) {
        pop();
      } else {
        e = stack.back();
        out[k++] = e;
        high = low;
        low = r + p - skip[k + 1 <= q ? k + 1 : q];
        remove(e);
        pop();
      }
    }
    for (int i = 0; i < q; ++i) out[i] = out[i] == q ? b : out[i] - q;
  }

  explicit CircGraph(Rank ranks) : p(static_cast<int>(ranks)) {
    while ((1 << q) < p) ++q;
    skip.assign(q + 1, 0);
    skip[q] = p;
    for (int k = q - 1; k >= 0; --k) skip[k] = skip[k + 1] / 2 + (skip[k + 1] & 1);
    R.assign(static_cast<std::size_t>(p) * q, 0);
    for (int r = 0; r < p; ++r) receive_schedule(r, R.data() + static_cast<std::size_t>(r) * q);
  }

  /// The blocks (roots) `rank` sends to rank + Skip[k] in round k.
  template <class Send>
  void for_each_send(int rank, int k, const Send& send) const {
    const int peer = (rank + skip[k]) % p;
    for (int root = 0; root < p; ++root)
      if (peer != root && send_block((rank - root + p) % p, k) >= 0) send(peer, root);
  }
};

Rank checked_ranks(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  return header.ranks();
}

std::string round_label(const CircGraph& g, int k) {
  return "round " + std::to_string(k) + ": to rank + " + std::to_string(g.skip[k]) +
         ", the roots whose schedule sends there";
}
constexpr const char* kOwnCopy = "the own block into recvbuf[rank]";

void table(const ScheduleHeader& header, const PhaseSink& out) {
  const CircGraph g(checked_ranks(header));
  Phase phase(kOwnCopy);
  out(phase);
  std::vector<Block> blocks;
  for (int k = 0; k < g.q; ++k) {
    phase.clear();
    phase.set_label(round_label(g, k));
    for (int rank = 0; rank < g.p; ++rank) {
      blocks.clear();
      int to = rank;
      g.for_each_send(rank, k, [&](int peer, int root) {
        to = peer;
        blocks.push_back(Block{static_cast<Rank>(root), kEveryRank});
      });
      if (!blocks.empty()) phase.add(static_cast<Rank>(rank), static_cast<Rank>(to), blocks);
    }
    out(phase);
  }
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  const CircGraph g(p);
  check_program_memory(header, std::uint64_t{p} * static_cast<std::uint64_t>(g.q), p, kName);
  Schedule s{header, {}};
  Phase copy(kOwnCopy);
  for (Rank rank = 0; rank < p; ++rank) copy.add(BufferOp{rank, rank, input(0), output(rank)});
  s.phases.push_back(std::move(copy));
  for (int k = 0; k < g.q; ++k) {
    Phase round(round_label(g, k));
    for (int rank = 0; rank < g.p; ++rank)
      g.for_each_send(rank, k, [&](int peer, int root) {
        round.add(
            BufferOp{static_cast<Rank>(rank), static_cast<Rank>(peer), output(root), output(root)});
      });
    s.phases.push_back(std::move(round));
  }
  s.header.buffers = natural_layout(Collective::allgather, p, 1);
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  unsigned q = 1;
  while ((std::uint64_t{1} << q) < p) ++q;
  Claims c{.phases = PhaseClaim::exactly(
               1 + std::size_t{q}, "the own copy, then q = ceil(log2 p) = " + std::to_string(q) +
                                       " rounds (one chunk)")};
  // Every rank receives each other root's block once and no round sends a rank more than the
  // others (checked by the tests for p <= 200: Träff's allgather is optimal in C2 too).
  c.c2 = PhaseClaim::exactly(p - 1, "p - 1 blocks received, none twice: the optimum");
  return c;
}

}  // namespace

Algorithm circulant() {
  Algorithm row = program_row(
      kName,
      "Träff's circulant graph: q = ceil(log2 p) rounds to rank + Skip[k], every root at once",
      "MPICH main allgather_intra_circ_graph.c, circ_graph.c; Träff, ACM TOPC 2025", kParameters,
      program, claims,
      [](const ScheduleHeader&, const Topology& model) { return fully_connected_with(model, 1); });
  row.generate = table;
  return row;
}

}  // namespace phasecheck::schedules::mpich
