#include "schedules/registry.hpp"

#include <algorithm>
#include <bit>
#include <type_traits>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "schedules/bruck.hpp"
#include "schedules/cluster_coloring.hpp"
#include "schedules/direct.hpp"
#include "schedules/faraj_yuan.hpp"
#include "schedules/grama.hpp"
#include "schedules/hierarchical_factor.hpp"
#include "schedules/randomized.hpp"
#include "schedules/alltoallv/algorithms.hpp"
#include "schedules/shipped.hpp"

namespace phasecheck::schedules {

namespace {

bool single_processor_nodes(const Topology& t) {
  const auto* c = std::get_if<Cluster>(&t);
  return c &&
         std::all_of(c->node_sizes().begin(), c->node_sizes().end(), [](Rank n) { return n == 1; });
}

bool is_fully_connected(const Topology& t) { return std::holds_alternative<FullyConnected>(t); }

/// `row`, its `generate` left empty, for an algorithm that emits direct phases: `direct` is its
/// generate_direct, and `generate` hands on the Phases filled from them.
Algorithm with_direct(Algorithm row, GenerateDirect direct) {
  row.generate = [direct](const ScheduleHeader& h, const PhaseSink& out) {
    direct(h, filling(out), {});
  };
  row.generate_direct = std::move(direct);
  return row;
}

/// A row for one of the direct algorithms of direct.hpp: `emit` makes Phases (a PhaseSink) or
/// direct phases (a DirectSink and the PhaseRange to make).
template <class... Emitted>
Algorithm direct(std::string_view name, std::string_view summary, std::string_view reference,
                 void (*emit)(const DirectOptions&, Emitted...),
                 std::vector<Invariant> (*invariants)(const DirectOptions&),
                 PhaseClaim (*phases)(Rank), bool (*contention_free_on)(const Topology&)) {
  Algorithm row{
      name,
      summary,
      reference,
      DirectOptions::parameters(),
      {},
      [=](const ScheduleHeader& h) {
        return Claims{.invariants = invariants ? invariants(DirectOptions::from(h, name))
                                               : std::vector<Invariant>{},
                      .phases = phases(h.ranks())};
      },
      [=](const ScheduleHeader&, const Topology& model) { return contention_free_on(model); }};
  if constexpr (sizeof...(Emitted) == 2) {
    return with_direct(std::move(row),
                       [=](const ScheduleHeader& h, const DirectSink& out, PhaseRange range) {
                         emit(DirectOptions::from(h, name), out, range);
                       });
  } else {
    row.generate = [=](const ScheduleHeader& h, const PhaseSink& out) {
      emit(DirectOptions::from(h, name), out);
    };
    return row;
  }
}

/// The claims of a lowered buffer program are the table's, as lowered_claims() adapts them
/// (core/buffer_lowering.hpp).
std::vector<Algorithm> with_program_claims(std::vector<Algorithm> rows) {
  for (Algorithm& a : rows) {
    if (a.program) continue;  // its own program: its claims know its form
    a.claims = [claims = std::move(a.claims)](const ScheduleHeader& h) {
      return h.buffers ? lowered_claims(claims(h)) : claims(h);
    };
  }
  return rows;
}

/// The algorithms of the five papers and Open MPI's Bruck.
std::vector<Algorithm> seed_algorithms() {
  return with_program_claims({
      direct(
          "factor", "p rounds over the 1-factors of the complete graph with self-loops",
          "Sanders & Traeff, Section 2, Lemma 1, Fig. 1", factor, factor_invariants,
          [](Rank p) { return PhaseClaim::exactly(p, "p rounds, Lemma 1"); },
          [](const Topology& t) { return is_fully_connected(t) || single_processor_nodes(t); }),
      direct(
          "shift", "step j: rank i sends to (i + j) mod p (MPICH order)",
          "MPICH pairwise alltoall; Faraj & Yuan, Section 6", shift, shift_invariants,
          [](Rank p) { return PhaseClaim::exactly(p, "p steps"); }, is_fully_connected),
      direct(
          "pairwise-xor", "step j: ranks i and i xor j exchange (p a power of two)",
          "Grama et al., Algorithm 4.10", pairwise_xor, pairwise_xor_invariants,
          [](Rank p) { return PhaseClaim::exactly(p, "p steps"); },
          [](const Topology& t) {
            return is_fully_connected(t) || single_processor_nodes(t) ||
                   std::holds_alternative<Hypercube>(t);
          }),
      direct(
          "linear", "every rank posts all its sends at once: one phase (LAM)",
          "LAM/MPI basic linear; Faraj & Yuan, Section 6", linear, nullptr,
          [](Rank) { return PhaseClaim::exactly(1, "one phase"); },
          [](const Topology& t) {
            const auto* f = std::get_if<FullyConnected>(&t);
            return f && f->ports + 1 >= f->ranks;
          }),
      {"hierarchical-factor",
       "Sanders-Traeff ClusteredAllToAll: phases retire the smallest nodes, rounds over 1-factors",
       "Sanders & Traeff, Section 3, Fig. 2, Theorem 1", HierarchicalFactorOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         hierarchical_factor(HierarchicalFactorOptions::from(h), out);
       },
       [](const ScheduleHeader& h) {
         return hierarchical_factor_claims(HierarchicalFactorOptions::from(h));
       },
       // Contention-free on the cluster it was made for (one operation per node and step).
       [](const ScheduleHeader& h, const Topology& model) { return model == h.topology; }},
      {"cluster-coloring",
       "phases as the colour classes of the node multigraph: the counting bound on SMP clusters",
       "phasecheck's own (docs/algorithms.md); Goldberg-Seymour for why the bound is the optimum",
       ClusterColoringOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         cluster_coloring(ClusterColoringOptions::from(h), out);
       },
       [](const ScheduleHeader& h) {
         return cluster_coloring_claims(ClusterColoringOptions::from(h));
       },
       // One operation per node and phase on the cluster it was made for.
       [](const ScheduleHeader& h, const Topology& model) { return model == h.topology; }},
      {"ring", "p - 1 steps of consolidated messages to the next node, shrinking by one block",
       "Grama et al., Section 4.5.1, Fig. 4.18, Eq. 4.7", RingOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) { ring(RingOptions::from(h), out); },
       [](const ScheduleHeader& h) { return ring_claims(RingOptions::from(h)); },
       // Neighbours only: free on a ring; a node sends one transfer per direction and step.
       [](const ScheduleHeader& h, const Topology& model) {
         const auto* f = std::get_if<FullyConnected>(&model);
         return std::holds_alternative<Ring>(model) ||
                (f && f->ports >= (RingOptions::from(h).bidirectional ? 2u : 1u));
       }},
      {"mesh", "row phase then column phase, each the ring algorithm with clustered messages",
       "Grama et al., Section 4.5.2, Fig. 4.19, Eq. 4.8", MeshOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) { mesh(MeshOptions::from(h), out); },
       [](const ScheduleHeader& h) { return mesh_claims(MeshOptions::from(h)); },
       // Neighbours along rows and columns: free on the mesh it was made for.
       [](const ScheduleHeader& h, const Topology& model) {
         return std::holds_alternative<Mesh>(model) && model == h.topology;
       }},
      {"hypercube-exchange", "log p steps exchanging p/2 blocks across one dimension each",
       "Grama et al., Section 4.5.3, Fig. 4.20, Eq. 4.9", HypercubeOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         hypercube_exchange(HypercubeOptions::from(h, "hypercube-exchange"), out);
       },
       [](const ScheduleHeader& h) {
         return hypercube_exchange_claims(HypercubeOptions::from(h, "hypercube-exchange"));
       },
       // Perfect matchings of neighbours: free on the hypercube, one port, single-processor nodes.
       [](const ScheduleHeader&, const Topology& model) {
         return std::holds_alternative<Hypercube>(model) || is_fully_connected(model) ||
                single_processor_nodes(model);
       }},
      with_direct(
          {"hypercube-pairwise",
           "Algorithm 4.10: p - 1 steps, node i exchanges with i xor j directly",
           "Grama et al., Section 4.5.3, Algorithm 4.10, Eq. 4.10",
           HypercubeOptions::parameters(),
           {},
           [](const ScheduleHeader& h) {
             return hypercube_pairwise_claims(HypercubeOptions::from(h, "hypercube-pairwise"));
           },
           // E-cube routing keeps every step congestion-free (the book's claim, proven per
           // instance).
           [](const ScheduleHeader&, const Topology& model) {
             return std::holds_alternative<Hypercube>(model) || is_fully_connected(model) ||
                    single_processor_nodes(model);
           }},
          [](const ScheduleHeader& h, const DirectSink& out, PhaseRange range) {
            hypercube_pairwise(HypercubeOptions::from(h, "hypercube-pairwise"), out, range);
          }),
      with_direct(
          {"faraj-yuan",
           "|M0| (|M| - |M0|) contention-free phases on any tree of switches: the bottleneck load",
           "Faraj & Yuan, Section 4, Fig. 4",
           FarajYuanOptions::parameters(),
           {},
           [](const ScheduleHeader& h) { return faraj_yuan_claims(h); },
           // Lemmas 3 and 4 and the Theorem: contention-free on the tree it was made for.
           [](const ScheduleHeader& h, const Topology& model) { return model == h.topology; }},
          [](const ScheduleHeader& h, const DirectSink& out, PhaseRange range) {
            const FarajYuanOptions o = FarajYuanOptions::from(h);
            faraj_yuan(faraj_yuan_plan(std::get<Tree>(h.topology), o.root), o.collective, out,
                       range);
          }),
      {"bruck-index",
       "radix-r rotations, w = ceil(log_r n) subphases of r - 1 steps, k at a time",
       "Bruck et al., Section 3, Appendix A",
       BruckIndexOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         bruck_index(BruckIndexOptions::from(h), out);
       },
       [](const ScheduleHeader& h) {
         return bruck_index_claims(BruckIndexOptions::from(h),
                                   h.buffers ? Form::program : Form::table);
       },
       // A round sends and receives one message per step, at most k steps: k ports suffice.
       [](const ScheduleHeader& h, const Topology& model) {
         const auto* f = std::get_if<FullyConnected>(&model);
         return f && f->ports >= std::min(BruckIndexOptions::from(h).ports, f->ranks);
       },
       {},
       bruck_index_program},
      {"bruck-concat",
       "circulant offsets (k+1)^i for d - 1 rounds, then one partitioned round",
       "Bruck et al., Section 4, Appendix B",
       BruckConcatOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         bruck_concat(BruckConcatOptions::from(h), out);
       },
       [](const ScheduleHeader& h) {
         return bruck_concat_claims(BruckConcatOptions::from(h),
                                    h.buffers ? Form::program : Form::table);
       },
       [](const ScheduleHeader& h, const Topology& model) {
         const auto* f = std::get_if<FullyConnected>(&model);
         return f && f->ports >= std::min(BruckConcatOptions::from(h).ports, f->ranks);
       },
       {},
       bruck_concat_program},
      {"ompi-bruck",
       "Open MPI's Bruck: rotate, ceil(log2 p) datatype sendrecvs each copied back, rotate back",
       "Open MPI coll_base_alltoall.c, ompi_coll_base_alltoall_intra_bruck; Bruck et al., "
       "Section 3 with r = 2",
       ompi_bruck_parameters(),
       // The table is the one its program's sends form (its local phases are empty phases).
       [](const ScheduleHeader& h, const PhaseSink& out) { table_of(ompi_bruck_program(h), out); },
       [](const ScheduleHeader& h) { return ompi_bruck_claims(h); },
       // Every sendrecv is the shift rank -> rank + distance: one port suffices.
       [](const ScheduleHeader&, const Topology& model) { return is_fully_connected(model); },
       {},
       ompi_bruck_program},
      {"modified-bruck",
       "Bruck with r = 2 and no rotations: read input at rank + j, write output at the last hop",
       "Bruck et al., Section 3 with r = 2, Phases 1 and 3 folded into the addressing",
       modified_bruck_parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         table_of(modified_bruck_program(h), out);
       },
       [](const ScheduleHeader& h) { return modified_bruck_claims(h); },
       // Every round is the shift rank -> rank + distance: one port suffices.
       [](const ScheduleHeader&, const Topology& model) { return is_fully_connected(model); },
       {},
       modified_bruck_program},
      {"randomized-sendrecv",
       "Algorithm 2: shuffled anti-circulant iterations, Waitall every ceil(max_queue/2) of them",
       "Slim Fly randomized Alltoall, Section 2, Algorithm 2", RandomizedOptions::parameters(true),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         randomized_sendrecv(RandomizedOptions::from(h, true), out);
       },
       [](const ScheduleHeader& h) {
         return randomized_sendrecv_claims(RandomizedOptions::from(h, true));
       },
       // Each iteration is a permutation: a batch of b iterations needs b ports.
       [](const ScheduleHeader& h, const Topology& model) {
         const auto* f = std::get_if<FullyConnected>(&model);
         return f && f->ports >= iterations_per_batch(RandomizedOptions::from(h, true).max_queue);
       }},
      {"randomized-scatter", "Algorithm 1: every receive, then every send, in shuffled order",
       "Slim Fly randomized Alltoall, Section 2, Algorithm 1", RandomizedOptions::parameters(false),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         randomized_scatter(RandomizedOptions::from(h, false), out);
       },
       [](const ScheduleHeader& h) {
         return randomized_scatter_claims(RandomizedOptions::from(h, false));
       },
       [](const ScheduleHeader&, const Topology& model) {
         const auto* f = std::get_if<FullyConnected>(&model);
         return f && f->ports + 1 >= f->ranks;
       }},
      {"randomized-segmented",
       "Algorithm 3: every message cut into blocks, each block a randomized Sendrecv round",
       "Slim Fly randomized Alltoall, Section 2, Algorithm 3", SegmentedOptions::parameters(),
       [](const ScheduleHeader& h, const PhaseSink& out) {
         randomized_segmented(SegmentedOptions::from(h), out);
       },
       [](const ScheduleHeader& h) {
         return randomized_segmented_claims(SegmentedOptions::from(h));
       },
       [](const ScheduleHeader&, const Topology&) { return false; }, SegmentedOptions::parts_of},
  });
}

/// The seed papers' algorithms, then those libraries ship (shipped.hpp), then the alltoallv ones.
const std::vector<Algorithm>& table() {
  static const std::vector<Algorithm> rows = [] {
    std::vector<Algorithm> all = seed_algorithms();
    for (auto* library : {ompi_algorithms, mpich_algorithms, nccl_algorithms})
      for (Algorithm& a : with_program_claims(library())) {
        if (a.library.empty())
          a.library = library == ompi_algorithms    ? "Open MPI"
                      : library == mpich_algorithms ? "MPICH"
                                                    : "NCCL";
        all.push_back(std::move(a));
      }
    for (Algorithm& a : alltoallv_algorithms()) all.push_back(std::move(a));
    return all;
  }();
  return rows;
}

}  // namespace

std::span<const Algorithm> algorithms() { return table(); }

const Algorithm* find_algorithm(std::string_view name) {
  for (const Algorithm& a : table())
    if (a.name == name) return &a;
  return nullptr;
}

const Algorithm& require_algorithm(std::string_view name) {
  if (const Algorithm* a = find_algorithm(name)) return *a;
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms()) names.emplace_back(a.name);
  throw InputError(unknown_name("algorithm", name, names));
}

Claims claims_for(const ScheduleHeader& header) {
  if (header.imported) return {};
  if (const auto* a = find_algorithm(header.algorithm)) return a->claims(header);
  return {};
}

std::string parameter_summary(const Algorithm& algorithm) {
  std::string out;
  for (const ParameterSpec& spec : algorithm.parameter_specs)
    out += (out.empty() ? "" : " ") + describe(spec);
  return out;
}

bool is_alltoallv(const Algorithm& algorithm) {
  const ParameterSpec* spec = find_spec(algorithm.parameter_specs, "collective");
  const auto* choice = spec ? std::get_if<Choice>(&spec->type) : nullptr;
  return choice && choice->values.size() == 1 && choice->values[0] == "alltoallv";
}

namespace {

/// An alltoallv's matrix and pieces into `h`.
void weigh(ScheduleHeader& h, const Algorithm& algorithm, SharedTraffic traffic) {
  if (!traffic)
    throw InputError(std::string(algorithm.name) +
                     " is an alltoallv: it needs a traffic matrix (--traffic FILE)");
  if (traffic->ranks != h.ranks())
    throw InputError("the traffic matrix has " + std::to_string(traffic->ranks) +
                     " ranks; the machine has " + std::to_string(h.ranks()));
  h.collective = Collective::alltoall;
  h.traffic = std::move(traffic);
  if (!algorithm.piece_elements) return;
  h.piece_elements = algorithm.piece_elements(h);
  const std::uint64_t parts = max_pieces(*h.traffic, h.pieces());
  if (parts > kMaxParts)
    throw InputError(std::string(algorithm.name) + ": pieces of " +
                     std::to_string(h.piece_elements) + " elements cut some message into " +
                     std::to_string(parts) + " pieces, more than " + std::to_string(kMaxParts));
  h.parts = static_cast<std::uint32_t>(std::max<std::uint64_t>(parts, 1));
}

}  // namespace

ScheduleHeader make_header(const Algorithm& algorithm, Topology topology, Parameters parameters,
                           SharedTraffic traffic) {
  ScheduleHeader h;
  h.algorithm = std::string(algorithm.name);
  h.topology = std::move(topology);
  h.parameters = std::move(parameters);
  check_parameters(h.parameters, algorithm.parameter_specs, h.ranks(), algorithm.name);
  if (is_alltoallv(algorithm)) {
    weigh(h, algorithm, std::move(traffic));
  } else {
    if (traffic)
      throw InputError(std::string(algorithm.name) +
                       " moves blocks of one size: a traffic matrix is for the alltoallv "
                       "algorithms (`phasecheck algorithms` lists them)");
    h.collective = parse_collective(
        read_choice(h.parameters, *find_spec(algorithm.parameter_specs, "collective")));
  }
  if (algorithm.parts) h.parts = algorithm.parts(h);
  h.inplace = algorithm.in_place;
  return h;
}

Schedule generate(const Algorithm& algorithm, Topology topology, Parameters parameters,
                  SharedTraffic traffic) {
  Schedule s{make_header(algorithm, std::move(topology), std::move(parameters), std::move(traffic)),
             {}};
  algorithm.generate(s.header, collect_into(s.phases));
  return s;
}

Schedule generate_program(const Algorithm& algorithm, const ScheduleHeader& header) {
  if (header.traffic)
    throw InputError(std::string(algorithm.name) +
                     ": an alltoallv's buffer program (format 3) is not modelled yet; its "
                     "schedules are phase tables");
  if (algorithm.program) return algorithm.program(header);
  Schedule table{header, {}};
  algorithm.generate(header, collect_into(table.phases));
  return lower_to_buffers(table);
}

}  // namespace phasecheck::schedules
