// fuzz-verifier: the checkers on small, well-formed phase tables derived from the bytes. The bytes
// choose a machine among every model of core/topology.hpp (at most 16 ranks), a header (collective,
// parts, an algorithm name from the registry or none, parameters), and the phases: either random
// transfers between existing ranks carrying existing blocks, or a registered algorithm's own
// schedule with a few faults planted (so that the checkers also walk nearly-correct tables, where
// invariants and claims do their work). verify::verify runs without claims, with the algorithm's
// claims, and on a second model of the same size (a what-if); the reports are rendered and
// costed, and on routed models the per-rank programs are built and replayed. Any verdict is fine;
// a crash, a sanitizer report or an exception (other than InputError from parameters that do not
// fit an algorithm, which the CLI reports as bad input) is a finding. An alltoall may be an
// alltoallv: a small random traffic matrix (zero cells included), whole or cut into pieces, its
// blocks drawn among the pieces that exist (a matrix of zeros only has none: its blocks are bad
// input, as `verify` says with exit 2).

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "finding.hpp"
#include "programs/program.hpp"
#include "programs/replay.hpp"
#include "programs/synchronization.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"
#include "verify/cost.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

constexpr std::size_t kMaxGeneratedTransfers = 4096;

std::vector<std::string> numbered(const char* prefix, std::size_t n) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back(prefix + std::to_string(i));
  return names;
}

/// Switch j >= 1 hangs below an earlier switch, each machine below any switch: every tree shape
/// (chains, empty switches, lopsided subtrees) of up to 4 switches and 8 machines.
Topology make_tree(FuzzedDataProvider& in) {
  const auto switches = in.ConsumeIntegralInRange<std::size_t>(0, 4);
  const auto machines = switches == 0 ? 1 : in.ConsumeIntegralInRange<std::size_t>(1, 8);
  const auto m = numbered("n", machines), s = numbered("s", switches);
  std::vector<Tree::NamedLink> links;
  for (std::size_t j = 1; j < switches; ++j)
    links.push_back({s[in.ConsumeIntegralInRange<std::size_t>(0, j - 1)], s[j]});
  for (std::size_t i = 0; i < machines && switches > 0; ++i)
    links.push_back({m[i], s[in.ConsumeIntegralInRange<std::size_t>(0, switches - 1)]});
  return Tree(m, s, std::move(links));
}

/// A spanning tree of routers plus extra links; 0 to 2 hosts per router, at least one on router 0;
/// capacities of 1 to 3 on half of them.
Topology make_graph(FuzzedDataProvider& in) {
  const auto n = in.ConsumeIntegralInRange<std::size_t>(1, 5);
  const auto routers = numbered("r", n);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t j = 1; j < n; ++j)
    pairs.push_back({in.ConsumeIntegralInRange<std::size_t>(0, j - 1), j});
  for (auto extra = in.ConsumeIntegralInRange(0, 3); extra > 0 && n > 1; --extra) {
    const auto a = in.ConsumeIntegralInRange<std::size_t>(0, n - 1);
    const auto b = in.ConsumeIntegralInRange<std::size_t>(0, n - 1);
    const std::pair<std::size_t, std::size_t> link{std::min(a, b), std::max(a, b)};
    if (a != b && std::find(pairs.begin(), pairs.end(), link) == pairs.end()) pairs.push_back(link);
  }
  std::vector<Graph::NamedLink> links;
  for (const auto& [a, b] : pairs) links.push_back({routers[a], routers[b]});
  std::vector<Rank> hosts;
  for (std::size_t j = 0; j < n; ++j) hosts.push_back(in.ConsumeIntegralInRange<Rank>(j == 0, 2));
  // GPU machines: parallel links and multi-port hosts (1 to 3), or all 1 (the unit path).
  std::vector<std::uint32_t> capacities, host_ports;
  if (in.ConsumeBool()) {
    for (std::size_t e = 0; e < links.size(); ++e)
      capacities.push_back(in.ConsumeIntegralInRange<std::uint32_t>(1, 3));
    for (std::size_t j = 0; j < n; ++j)
      host_ports.push_back(in.ConsumeIntegralInRange<std::uint32_t>(1, 3));
  }
  return Graph(routers, std::move(links), std::move(hosts), std::move(capacities),
               std::move(host_ports));
}

Topology make_topology(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 6)) {
    case 0:
      return make_tree(in);
    case 1: {
      std::vector<Rank> sizes(in.ConsumeIntegralInRange<std::size_t>(1, 4));
      for (Rank& s : sizes) s = in.ConsumeIntegralInRange<Rank>(1, 4);
      return Cluster(std::move(sizes));
    }
    case 2: {
      const auto p = in.ConsumeIntegralInRange<Rank>(1, 10);
      return FullyConnected(p, in.ConsumeIntegralInRange<Rank>(1, p + 1));
    }
    case 3:
      return Hypercube(in.ConsumeIntegralInRange(0u, 3u));
    case 4:
      return Mesh(in.ConsumeIntegralInRange(1u, 4u), in.ConsumeIntegralInRange(1u, 4u),
                  in.ConsumeBool());
    case 5:
      return Ring(in.ConsumeIntegralInRange<Rank>(1, 10));
    default:
      return make_graph(in);
  }
}

/// Another model with the same ranks, for a what-if.
Topology other_model(FuzzedDataProvider& in, Rank p) {
  switch (in.ConsumeIntegralInRange(0, 2)) {
    case 0:
      return Ring(p);
    case 1:
      return FullyConnected(p, in.ConsumeIntegralInRange<Rank>(1, 3));
    default:
      return Cluster(std::vector<Rank>(1, p));
  }
}

/// The parameters algorithms read, with values inside and outside their ranges.
void add_parameters(FuzzedDataProvider& in, Parameters& parameters) {
  static const char* const keys[] = {"radix",      "ports", "seed",          "max_queue", "bytes",
                                     "block_size", "root",  "bidirectional", "compact",   "ranks"};
  static const char* const values[] = {"0",    "1",     "2",  "3",  "7",
                                       "true", "false", "s0", "s1", "4096"};
  for (auto n = in.ConsumeIntegralInRange(0, 2); n > 0; --n) {
    const char* key = keys[in.ConsumeIntegralInRange<std::size_t>(0, std::size(keys) - 1)];
    const char* value = values[in.ConsumeIntegralInRange<std::size_t>(0, std::size(values) - 1)];
    if (!parameters.has(key)) parameters.set(key, value);  // a key twice is refused on input
  }
}

/// An alltoallv's block: the first message from (origin, dest) on, in row-major order, that has
/// elements, and one of its pieces; [origin, dest] itself when the matrix is all zeros.
Block existing_piece(FuzzedDataProvider& in, const ScheduleHeader& h, Rank origin, Rank dest) {
  const Traffic& t = *h.traffic;
  const std::size_t cells = t.counts.size();
  for (std::size_t i = 0; i < cells; ++i) {
    const std::size_t at = (std::size_t{origin} * t.ranks + dest + i) % cells;
    const std::uint64_t pieces = h.pieces().of(t.counts[at]);
    if (pieces == 0) continue;
    return {static_cast<Rank>(at / t.ranks), static_cast<Rank>(at % t.ranks),
            in.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(pieces - 1))};
  }
  return {origin, dest, 0};
}

Block random_block(FuzzedDataProvider& in, const ScheduleHeader& h) {
  const Rank p = h.ranks();
  const auto origin = in.ConsumeIntegralInRange<Rank>(0, p - 1);
  if (h.collective == Collective::allgather) return {origin, kEveryRank, 0};
  const auto dest = in.ConsumeIntegralInRange<Rank>(0, p - 1);
  if (h.traffic) return existing_piece(in, h, origin, dest);
  return {origin, dest, in.ConsumeIntegralInRange<std::uint32_t>(0, h.parts - 1)};
}

/// Makes `h` an alltoallv: counts of 0 to 5 elements, whole or in pieces of 1 to 3.
void make_alltoallv(FuzzedDataProvider& in, ScheduleHeader& h) {
  Traffic t = zero_traffic(h.ranks(), in.ConsumeIntegralInRange<std::uint64_t>(1, 8));
  for (std::uint64_t& c : t.counts) c = in.ConsumeIntegralInRange<std::uint64_t>(0, 5);
  h.piece_elements = in.ConsumeIntegralInRange<std::uint64_t>(0, 3);
  h.parts = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, max_pieces(t, h.pieces())));
  h.traffic = SharedTraffic(std::move(t));
}

std::vector<Phase> random_phases(FuzzedDataProvider& in, const ScheduleHeader& h) {
  const Rank p = h.ranks();
  std::vector<Phase> phases(in.ConsumeIntegralInRange<std::size_t>(0, 8));
  for (Phase& phase : phases) {
    if (in.ConsumeBool()) phase.set_label(in.ConsumeRandomLengthString(12));
    for (auto t = in.ConsumeIntegralInRange<Rank>(0, 2 * p); t > 0; --t) {
      const auto src = in.ConsumeIntegralInRange<Rank>(0, p - 1);
      const auto dst = in.ConsumeIntegralInRange<Rank>(0, p - 1);
      std::vector<Block> blocks;
      if (in.ConsumeBool()) {
        Block b = direct_block(h.collective, src, dst);
        if (h.traffic)
          b = existing_piece(in, h, src, dst);
        else if (h.collective == Collective::alltoall)
          b.part = in.ConsumeIntegralInRange<std::uint32_t>(0, h.parts - 1);
        blocks.push_back(b);
      } else {
        for (auto n = in.ConsumeIntegralInRange(1, 4); n > 0; --n)
          blocks.push_back(random_block(in, h));
      }
      phase.add(src, dst, blocks);
    }
  }
  return phases;
}

/// A copy of `phase` with transfer `at` changed by `change` (or dropped when it returns false).
template <class Change>
Phase rebuilt(const Phase& phase, std::size_t at, Change&& change) {
  Phase out(phase.label());
  for (std::size_t i = 0; i < phase.size(); ++i) {
    Rank src = phase[i].src, dst = phase[i].dst;
    std::vector<Block> blocks(phase.blocks(phase[i]).begin(), phase.blocks(phase[i]).end());
    if (i == at && !change(src, dst, blocks)) continue;
    out.add(src, dst, blocks);
  }
  return out;
}

/// Plants up to three faults: a transfer dropped, redirected, given another block or copied into
/// another phase; two phases swapped; a phase removed.
void plant_faults(FuzzedDataProvider& in, const ScheduleHeader& h, std::vector<Phase>& phases) {
  const Rank p = h.ranks();
  for (auto n = in.ConsumeIntegralInRange(0, 3); n > 0 && !phases.empty(); --n) {
    const auto ph = in.ConsumeIntegralInRange<std::size_t>(0, phases.size() - 1);
    Phase& phase = phases[ph];
    const auto at = phase.empty() ? 0 : in.ConsumeIntegralInRange<std::size_t>(0, phase.size() - 1);
    switch (in.ConsumeIntegralInRange(0, 5)) {
      case 0:
        phase = rebuilt(phase, at, [](Rank&, Rank&, std::vector<Block>&) { return false; });
        break;
      case 1:
        phase = rebuilt(phase, at, [&](Rank&, Rank& dst, std::vector<Block>&) {
          dst = in.ConsumeIntegralInRange<Rank>(0, p - 1);
          return true;
        });
        break;
      case 2:
        phase = rebuilt(phase, at, [&](Rank&, Rank&, std::vector<Block>& blocks) {
          blocks.push_back(random_block(in, h));
          return true;
        });
        break;
      case 3:
        if (!phase.empty()) {
          const Transfer t = phase[at];
          const std::vector<Block> blocks(phase.blocks(t).begin(), phase.blocks(t).end());
          phases[in.ConsumeIntegralInRange<std::size_t>(0, phases.size() - 1)].add(t.src, t.dst,
                                                                                   blocks);
        }
        break;
      case 4:
        std::swap(phase, phases[in.ConsumeIntegralInRange<std::size_t>(0, phases.size() - 1)]);
        break;
      default:
        phases.erase(phases.begin() + static_cast<std::ptrdiff_t>(ph));
        break;
    }
  }
}

void render(const verify::Report& report, const Claims& claims) {
  for (const auto format :
       {reports::ReportFormat::text, reports::ReportFormat::json, reports::ReportFormat::junit})
    (void)reports::render(report, "fuzz.json", format);
  const verify::CostReport cost = verify::cost(report, claims, {10e-6, 1e-9, 1024});
  (void)reports::render_cost(cost, report, "fuzz.json", reports::ReportFormat::text);
}

/// Pair-wise synchronization, the per-rank programs and their replay (routed models only).
void programs_of(const Schedule& schedule) {
  std::optional<programs::SyncPlan> plan;
  try {
    plan = programs::pairwise_synchronization(schedule, schedule.header.topology);
  } catch (const InputError&) {  // not a routed model
  }
  for (const auto separation : {programs::Separation::none, programs::Separation::barrier,
                                programs::Separation::pairwise}) {
    if (separation == programs::Separation::pairwise && !plan) continue;
    const auto ranks = programs::rank_programs(schedule, separation, plan ? &*plan : nullptr);
    (void)programs::replay(schedule, schedule.header.topology, ranks);
    for (const auto& r : ranks) (void)programs::listing(r);
  }
}

/// A format-3 program for `header`'s machine: random ops over random buffers (reads and writes
/// beyond them, empty slots, double writes included), or `lowered` with a few ops bent.
Schedule program_of(FuzzedDataProvider& in, const ScheduleHeader& header,
                    const std::optional<Schedule>& lowered) {
  Schedule s;
  const Rank p = header.ranks();
  if (lowered) {
    s = *lowered;
  } else {
    s.header = header;
    const std::uint32_t c = header.collective == Collective::alltoall
                                ? header.parts
                                : in.ConsumeIntegralInRange<std::uint32_t>(1, 2);
    const bool inplace = header.collective == Collective::allgather && in.ConsumeBool();
    BufferLayout layout = natural_layout(header.collective, p, c, inplace);
    if (!inplace) layout.input += in.ConsumeIntegralInRange<std::uint32_t>(0, 2);
    layout.output += in.ConsumeIntegralInRange<std::uint32_t>(0, 2);
    layout.scratch = in.ConsumeIntegralInRange<std::uint32_t>(0, 8);
    s.header.parts = c;
    s.header.buffers = layout;
    const auto phases = in.ConsumeIntegralInRange<std::size_t>(0, 6);
    for (std::size_t t = 0; t < phases; ++t) {
      Phase phase("p" + std::to_string(t));
      const auto ops = in.ConsumeIntegralInRange<std::size_t>(0, 24);
      for (std::size_t i = 0; i < ops && in.remaining_bytes() > 0; ++i) {
        const auto slot = [&] {
          const Buffer b = kBuffers[in.ConsumeIntegralInRange<int>(0, 2)];
          return Slot{b, in.ConsumeIntegralInRange<std::uint32_t>(0, layout.size(b) + 1)};
        };
        const Rank src = in.ConsumeIntegralInRange<Rank>(0, p - 1);
        const Rank dst = in.ConsumeBool() ? src : in.ConsumeIntegralInRange<Rank>(0, p - 1);
        const Slot from = slot(), to = slot();
        phase.add(BufferOp{src, dst, from, to, in.ConsumeIntegralInRange<std::uint32_t>(1, 3)});
      }
      s.phases.push_back(std::move(phase));
    }
    return s;
  }
  // Bend a few ops of the lowered program: another slot, another buffer, one chunk more.
  const auto bends = in.ConsumeIntegralInRange<int>(0, 3);
  for (int b = 0; b < bends && !s.phases.empty(); ++b) {
    Phase& phase = s.phases[in.ConsumeIntegralInRange<std::size_t>(0, s.phases.size() - 1)];
    if (phase.ops().empty()) continue;
    std::vector<BufferOp> ops(phase.ops().begin(), phase.ops().end());
    BufferOp& op = ops[in.ConsumeIntegralInRange<std::size_t>(0, ops.size() - 1)];
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        op.to.index = op.to.index + 1;
        break;
      case 1:
        op.from.index = op.from.index > 0 ? op.from.index - 1 : 1;
        break;
      case 2:
        op.to.buffer = Buffer::scratch;
        break;
      default:
        ++op.count;
    }
    Phase bent(phase.label());
    for (const BufferOp& o : ops) bent.add(o);
    phase = std::move(bent);
  }
  return s;
}

void check(FuzzedDataProvider& in) {
  const auto algorithms = schedules::algorithms();
  Schedule s;
  s.header.topology = make_topology(in);
  const Rank p = s.header.ranks();
  const schedules::Algorithm* algorithm = nullptr;
  if (in.ConsumeBool()) {
    algorithm = &algorithms[in.ConsumeIntegralInRange<std::size_t>(0, algorithms.size() - 1)];
    s.header.algorithm = algorithm->name;
  } else {
    s.header.algorithm = "fuzz";
  }
  s.header.collective = in.ConsumeBool() ? Collective::alltoall : Collective::allgather;
  if (s.header.collective == Collective::alltoall)
    s.header.parts = in.ConsumeIntegralInRange<std::uint32_t>(1, 3);
  const bool alltoallv = (algorithm && schedules::is_alltoallv(*algorithm)) ||
                         (s.header.collective == Collective::alltoall && in.ConsumeBool());
  if (alltoallv) {
    s.header.collective = Collective::alltoall;
    make_alltoallv(in, s.header);
  }
  add_parameters(in, s.header.parameters);

  // Either the algorithm's own schedule (when it fits this machine) with faults, or random phases.
  bool generated = false;
  std::optional<Schedule> lowered;  // the algorithm's buffer program, when it fits
  if (algorithm && in.ConsumeBool()) {
    try {
      Schedule g = schedules::generate(*algorithm, s.header.topology, s.header.parameters,
                                       s.header.traffic);
      std::size_t transfers = 0;
      for (const Phase& phase : g.phases) transfers += phase.size();
      // Segmented schedules reach 10^5 transfers: keep each input fast.
      if (transfers <= kMaxGeneratedTransfers) {
        if (!g.header.traffic)  // an alltoallv's buffer program is not modelled
          lowered = schedules::generate_program(*algorithm, g.header);
        s = std::move(g);
        generated = true;
      }
    } catch (const InputError&) {  // the algorithm does not fit this machine or these parameters
    }
  }
  if (generated)
    plant_faults(in, s.header, s.phases);
  else
    s.phases = random_phases(in, s.header);

  try {
    render(verify::verify(s, s.header.topology), {});
  } catch (const InputError&) {
    // Only an alltoallv of zeros has blocks that are not its own: bad input, exit 2.
    if (!s.header.traffic || max_pieces(*s.header.traffic, s.header.pieces()) > 0) throw;
    return;
  }
  if (algorithm) {
    std::optional<Claims> claims;
    try {
      claims = algorithm->claims(s.header);
    } catch (const InputError&) {  // parameters that do not fit: `verify` reports bad input
    }
    if (claims) {
      render(verify::verify(s, s.header.topology, *claims), *claims);
      render(verify::verify(s, other_model(in, p), *claims), *claims);
    }
  }
  if (p <= 12 && in.ConsumeBool()) programs_of(s);

  // Format 3: the same machine, a buffer program (an alltoallv's is not modelled).
  if (!s.header.traffic && in.ConsumeBool()) {
    const Schedule program = program_of(in, s.header, lowered);
    try {
      render(verify::verify(program, program.header.topology), {});
    } catch (const InputError&) {  // a malformed op (rank out of range): `verify` says exit 2
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  try {
    check(in);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("an exception escaped the checkers: ") + e.what());
  }
  return 0;
}
