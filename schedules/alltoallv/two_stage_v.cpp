// two-stage-v: the node-aware alltoallv of GPU machines (DeepEP's internode dispatch; the
// hierarchical alltoall of Träff and Rougier's "multi-lane" decomposition): ranks form N = p / G
// nodes of G ranks, rank (A, i) = A G + i. Stage 1, across nodes through the same local index:
// phase t = 1 .. N - 1, rank (A, i) sends rank (A + t, i) everything it has for node A + t (the
// blocks [(A, i), (A + t, j)] for every j). Stage 2, inside the node: phase s = 1 .. G - 1, rank
// (B, i) sends rank (B, i + s) the blocks for it that it holds: its own and those stage 1 brought
// from (A, i) of every other node (forwarding). A transfer carrying no element is not sent.
// (N - 1) + (G - 1) phases, each a permutation (one port); cost: the sum over phases of the
// largest aggregate.

#include <algorithm>

#include "core/error.hpp"
#include "schedules/alltoallv/direct_v.hpp"
#include "schedules/alltoallv/rows.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules::alltoallv {
namespace {

constexpr std::string_view kName = "two-stage-v";
constexpr ParameterSpec kGpusPerNode{"gpus_per_node", UInt{1, RankCount{}},
                                     InWords{"8 when it divides p, else 1"},
                                     "G: ranks per node, numbered node by node; must divide p"};
constexpr ParameterSpec kParameters[] = {kAlltoallvCollective, kGpusPerNode};

/// G, checked to divide p.
Rank gpus_per_node(const ScheduleHeader& header) {
  const Rank p = header.ranks();
  check_parameters(header.parameters, kParameters, p, kName);
  const Rank g =
      static_cast<Rank>(read_uint(header.parameters, kGpusPerNode, p, p % 8 == 0 ? 8 : 1));
  if (p % g != 0)
    throw InputError(std::string(kName) + ": gpus_per_node = " + std::to_string(g) +
                     " does not divide the " + std::to_string(p) + " ranks");
  return g;
}

/// The two stages' transfers: `visit(phase index, src, dst, blocks)` for every transfer that
/// carries elements, phases 0 .. N - 2 across nodes, then N - 1 .. N + G - 3 inside them.
template <class Visit>
void each_transfer(const Traffic& traffic, Rank g, Visit visit) {
  const Rank p = traffic.ranks, nodes = p / g;
  std::vector<Block> blocks;
  for (Rank t = 1; t < nodes; ++t)
    for (Rank from = 0; from < p; ++from) {
      const Rank to = (from + t * g) % p;  // (A + t, i)
      const Rank first = to - to % g;
      blocks.clear();
      for (Rank d = first; d < first + g; ++d)
        if (traffic.count(from, d) > 0) blocks.push_back(Block{from, d, 0});
      if (!blocks.empty()) visit(t - 1, from, to, blocks);
    }
  for (Rank s = 1; s < g; ++s)
    for (Rank from = 0; from < p; ++from) {
      const Rank i = from % g, node_first = from - i;
      const Rank to = node_first + (i + s) % g;  // (B, i + s)
      blocks.clear();
      for (Rank a = 0; a < nodes; ++a) {
        const Rank origin = a * g + i;  // (A, i): itself when A = B
        if (traffic.count(origin, to) > 0) blocks.push_back(Block{origin, to, 0});
      }
      if (!blocks.empty()) visit(nodes - 1 + s - 1, from, to, blocks);
    }
}

std::string label(Rank index, Rank nodes, Rank g) {
  if (index + 1 < nodes)
    return "stage 1, t = " + std::to_string(index + 1) +
           ": (A, i) sends (A + t, i) its blocks for node A + t";
  const Rank s = index - (nodes - 1) + 1;
  return "stage 2, s = " + std::to_string(s) + ": (B, i) sends (B, i + " + std::to_string(s) +
         ") its own and the forwarded blocks for it (G = " + std::to_string(g) + ")";
}

void generate(const ScheduleHeader& header, const PhaseSink& out) {
  const Rank g = gpus_per_node(header);
  const Traffic& traffic = traffic_of(header, kName);
  const Rank nodes = traffic.ranks / g;
  std::vector<Phase> phases(nodes - 1 + g - 1);
  for (Rank k = 0; k < phases.size(); ++k) phases[k].set_label(label(k, nodes, g));
  each_transfer(traffic, g, [&](Rank k, Rank from, Rank to, std::span<const Block> blocks) {
    phases[k].add(from, to, blocks);
  });
  for (const Phase& phase : phases) out(phase);
}

Claims claims(const ScheduleHeader& header) {
  const Rank g = gpus_per_node(header);
  const Traffic& traffic = traffic_of(header, kName);
  const Rank nodes = traffic.ranks / g;
  std::vector<std::uint64_t> largest(nodes - 1 + g - 1, 0);
  each_transfer(traffic, g, [&](Rank k, Rank, Rank, std::span<const Block> blocks) {
    std::uint64_t bytes = 0;
    for (const Block& b : blocks) bytes += traffic.bytes(b.origin, b.dest);
    largest[k] = std::max(largest[k], bytes);
  });
  std::uint64_t cost = 0;
  for (std::uint64_t l : largest) cost += l;
  Claims c{.phases = PhaseClaim::exactly(largest.size(),
                                         "(N - 1) + (G - 1) with N = " + std::to_string(nodes) +
                                             " nodes of G = " + std::to_string(g))};
  c.cost_bytes = PhaseClaim::exactly(
      cost,
      "the sum over phases of the largest aggregate: stage 1 a rank's bytes for one node, "
      "stage 2 a local index's bytes from every node for one rank");
  return c;
}

}  // namespace

Algorithm two_stage_v() {
  return {
      kName,
      "across nodes through the same local index, then inside the node (forwarding)",
      "DeepEP internode dispatch; Träff and Rougier 2014, multi-lane all-to-all",
      kParameters,
      generate,
      claims,
      [](const ScheduleHeader&, const Topology& model) { return fully_connected_with(model, 1); }};
}

}  // namespace phasecheck::schedules::alltoallv
