#include "properties/function_fuzz.hpp"

#include <chrono>

#include "core/error.hpp"
#include "properties/failure.hpp"
#include "properties/machines.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::properties {
namespace {

/// Raw value i of `v`, 0 beyond its end (so that a shortened vector is a simpler machine).
std::uint8_t at(const std::vector<std::uint8_t>& v, std::size_t i) { return i < v.size() ? v[i] : 0; }

/// At most this many candidates are tried while shrinking one failure.
constexpr int kMaxShrinkRuns = 2000;
/// The function may decline this many machines per case before the campaign gives up.
constexpr std::uint64_t kMaxDiscardRatio = 50;

}  // namespace

const std::vector<std::string>& machine_kinds() {
  static const std::vector<std::string> kinds = {"fully-connected", "cluster",   "tree", "ring",
                                                 "hypercube",       "mesh",      "graph"};
  return kinds;
}

Topology build_machine(const MachineSeed& seed) {
  const auto& [kind, a, b, c] = seed;
  switch (kind % machine_kinds().size()) {
    case 0: {
      const Rank p = 1 + at(a, 0) % 12;
      return Topology(FullyConnected(p, 1 + at(a, 1) % (p + 1)));
    }
    case 1:
      // The shapes of generators.hpp's cluster(): any sizes, all equal, organ pipe, one big node
      // among size-1 nodes, many size-1 nodes.
      switch (at(b, 0) % 5) {
        case 0: {
          std::vector<Rank> sizes;
          for (const std::uint8_t v : a) sizes.push_back(1 + v % 5);
          return cluster_machine(std::move(sizes));
        }
        case 1: return cluster_machine(std::vector<Rank>(1 + at(a, 0) % 6, 1 + at(a, 1) % 5));
        case 2: return organ_pipe_cluster(1 + at(a, 0) % 4);
        case 3: return big_among_small_cluster(2 + at(a, 0) % 11, at(a, 1) % 8);
        default: return cluster_machine(std::vector<Rank>(1 + at(a, 0) % 12, 1));
      }
    case 2: return tree_machine(a, b);
    case 3: return Topology(Ring(1 + at(a, 0) % 12));
    case 4: return Topology(Hypercube(at(a, 0) % 5));
    case 5: return Topology(Mesh(1 + at(a, 0) % 4, 1 + at(a, 1) % 4, (at(a, 2) & 1) != 0));
    default: {
      std::vector<std::pair<std::uint8_t, std::uint8_t>> extra;
      for (std::size_t i = 0; i + 1 < b.size(); i += 2) extra.emplace_back(b[i], b[i + 1]);
      return graph_machine(a, extra, c);
    }
  }
}

MachineSeed draw_machine(std::mt19937_64& engine, int size) {
  MachineSeed seed;
  seed.kind = static_cast<std::uint8_t>(engine() % machine_kinds().size());
  const auto values = [&](std::vector<std::uint8_t>& v) {
    v.resize(engine() % (static_cast<std::uint64_t>(size) + 1));
    for (std::uint8_t& x : v) x = static_cast<std::uint8_t>(engine());
  };
  values(seed.a);
  values(seed.b);
  values(seed.c);
  return seed;
}

std::vector<MachineSeed> shrinks(const MachineSeed& seed) {
  std::vector<MachineSeed> out;
  for (std::uint8_t k = 0; k < seed.kind; ++k) {
    out.push_back(seed);
    out.back().kind = k;
  }
  for (auto member : {&MachineSeed::a, &MachineSeed::b, &MachineSeed::c}) {
    const std::vector<std::uint8_t>& v = seed.*member;
    if (v.size() > 1) {
      out.push_back(seed);
      (out.back().*member).resize(v.size() / 2);
    }
    for (std::size_t i = v.size(); i-- > 0;) {
      out.push_back(seed);
      (out.back().*member).erase((out.back().*member).begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  for (auto member : {&MachineSeed::a, &MachineSeed::b, &MachineSeed::c})
    for (std::size_t i = 0; i < (seed.*member).size(); ++i) {
      const std::uint8_t v = (seed.*member)[i];
      if (v == 0) continue;
      std::vector<std::uint8_t> smaller = {0};  // then v/2 and v-1, each value once
      if (v / 2 != 0) smaller.push_back(static_cast<std::uint8_t>(v / 2));
      if (v - 1 != 0 && v - 1 != v / 2) smaller.push_back(static_cast<std::uint8_t>(v - 1));
      for (const std::uint8_t value : smaller) {
        out.push_back(seed);
        (out.back().*member)[i] = value;
      }
    }
  return out;
}

std::string judge_generated(const Schedule& s, const Topology& t, bool contention_free,
                            verify::Report* report) {
  try {
    const auto* known = schedules::find_algorithm(s.header.algorithm);
    verify::Report r = verify::verify(s, t, known ? known->claims(s.header) : Claims{});
    std::string broken = r.broken_claims(contention_free);
    // "name: summary; name: summary; " -> without the last separator.
    while (!broken.empty() && (broken.back() == ' ' || broken.back() == ';')) broken.pop_back();
    if (report) *report = std::move(r);
    return broken;
  } catch (const InputError& e) {
    return std::string("the schedule cannot be judged on this machine: ") + e.what();
  }
}

void validate(const FunctionFuzzOptions& o) {
  if (o.cases == 0 || o.cases > (std::uint64_t(1) << 30))
    throw InputError("fuzz: cases must be in [1, 2^30]");
  if (o.max_size < 1 || o.max_size > kMaxFuzzSize)
    throw InputError("fuzz: max_size must be in [1, " + std::to_string(kMaxFuzzSize) + "]");
}

FuzzOutcome fuzz_function(const FunctionFuzzOptions& o,
                          const std::function<std::optional<Schedule>(const Topology&)>& function,
                          const CaseReportRenderer& render_case) {
  validate(o);
  const std::string name = "function '" + o.name + "'";
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // One case: declined (nothing), passed ("" broken), or failed.
  struct Case {
    bool declined = false;
    FoundFailure failure;
    std::string broken;
  };
  const auto run = [&](const MachineSeed& seed) {
    Case c;
    c.failure.topology = build_machine(seed);
    std::optional<Schedule> made;
    try {
      made = function(c.failure.topology);
    } catch (const InputError&) {
      c.declined = true;
      return c;
    } catch (const FunctionFailed& e) {
      c.broken = e.what();
      c.failure.what = name + ": " + c.broken;
      c.failure.report = c.broken + "\n";
      return c;
    }
    if (!made) {
      c.declined = true;
      return c;
    }
    verify::Report report;
    c.broken = judge_generated(*made, c.failure.topology, o.contention_free, &report);
    if (!c.broken.empty()) {
      c.failure.what = name + ": " + c.broken;
      c.failure.report = report.checks.empty() ? c.broken + "\n" : render_case(report);
      c.failure.schedule = std::move(made);
    }
    return c;
  };
  std::mt19937_64 engine(o.seed);
  std::uint64_t passed = 0, discarded = 0;
  while (passed < o.cases) {
    // Sizes grow from 1 to max_size over the cases, as rapidcheck's do.
    const int size =
        o.cases == 1 ? o.max_size
                     : 1 + static_cast<int>(passed * static_cast<std::uint64_t>(o.max_size - 1) /
                                            (o.cases - 1));
    MachineSeed seed = draw_machine(engine, size);
    Case c = run(seed);
    if (c.declined) {
      if (++discarded > kMaxDiscardRatio * o.cases)
        return {name, Verdict::not_evaluated, passed, discarded, elapsed(),
                "the function declined too many machines (" + std::to_string(discarded) + ")",
                std::nullopt};
      continue;
    }
    if (c.broken.empty()) {
      ++passed;
      continue;
    }
    // Shrink: the first simpler seed that still fails replaces it, until none does.
    int runs = 0;
    for (bool simpler = true; simpler && runs < kMaxShrinkRuns;) {
      simpler = false;
      for (const MachineSeed& candidate : shrinks(seed)) {
        if (++runs > kMaxShrinkRuns) break;
        Case smaller = run(candidate);
        if (smaller.declined || smaller.broken.empty()) continue;
        seed = candidate;
        c = std::move(smaller);
        simpler = true;
        break;
      }
    }
    const std::string again = "phasecheck.fuzz(" + o.name + ", cases=" + std::to_string(o.cases) +
                              ", seed=" + std::to_string(o.seed) +
                              ", max_size=" + std::to_string(o.max_size) +
                              (o.contention_free ? ", contention_free=True" : "") + ")";
    return {name,          Verdict::fail, passed + 1, discarded, elapsed(), "",
            record_failure(c.failure, o.out, again)};
  }
  return {name, Verdict::pass, passed, discarded, elapsed(), "", std::nullopt};
}

}  // namespace phasecheck::properties
