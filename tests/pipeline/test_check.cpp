#include <doctest/doctest.h>

#include <atomic>
#include <barrier>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/networks.hpp"
#include "distributed/partial_json.hpp"
#include "example_machines.hpp"
#include "io/json.hpp"
#include "pipeline/check.hpp"
#include "pipeline/read_schedule.hpp"
#include "verify/delivery.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

/// `generate | verify`: the schedule written as JSON, read back and verified.
verify::Report generate_then_verify(const schedules::Algorithm& a, const Topology& model) {
  const ScheduleHeader header = schedules::make_header(a, model, {});
  std::ostringstream json;
  io::ScheduleWriter writer(json, header);
  a.generate(header, writer.sink());
  writer.finish();
  const Schedule read = pipeline::parse_schedule(json.str(), "generated.json");
  return verify::verify(read, read.header.topology, schedules::claims_for(read.header));
}

}  // namespace

TEST_CASE("check: the same report as generate | verify, for every algorithm on every example") {
  std::size_t compared = 0;
  for (const auto& [file, model] : testing::example_machines()) {
    if (ranks(model) > 64) continue;  // the larger examples add time, not cases
    for (const schedules::Algorithm& a : schedules::algorithms()) {
      std::optional<verify::Report> streamed;
      try {
        streamed = pipeline::check_algorithm(a, model, {});
      } catch (const InputError&) {
        CHECK_THROWS_AS(generate_then_verify(a, model), InputError);  // refused alike
        continue;
      }
      INFO(std::string(a.name) << " on " << file);
      REQUIRE(streamed);
      CHECK(*streamed == generate_then_verify(a, model));
      // Spread over threads: the same report, to the byte of every counterexample.
      for (const unsigned threads : {2u, 3u}) {
        pipeline::Spread spread;
        spread.threads = threads;
        CHECK(pipeline::check_algorithm(a, model, {}, spread) == streamed);
      }
      ++compared;
    }
  }
  CHECK(compared > 50);
}

TEST_CASE("check: a contended schedule is found contended, with its counterexample") {
  const Topology tree = io::read_topology_file(std::string(PHASECHECK_SOURCE_DIR) +
                                               "/examples/faraj-yuan-fig1/topology.json");
  const verify::Report r =
      *pipeline::check_algorithm(*schedules::find_algorithm("linear"), tree, {});
  CHECK(r.verdict() == Verdict::fail);
  REQUIRE_FALSE(r.passed(CheckId::contention));
  bool drawn = false;
  for (const CheckResult& c : r.checks)
    if (c.id == CheckId::contention) drawn = c.counterexample && !c.counterexample->resource.empty();
  CHECK(drawn);
}

TEST_CASE("check: bad parameters are refused before any phase is made") {
  const Topology model = FullyConnected(8, 1);
  Parameters p;
  p.set("radix", std::string("99"));
  CHECK_THROWS_AS(pipeline::check_algorithm(*schedules::find_algorithm("bruck-index"), model, p),
                  InputError);
}

TEST_CASE("check: spread over processes, the findings merged on the stateful one, same report") {
  // What `mpirun -np N` does, in one process: N checks of the same phases, each with its share;
  // the phase-local findings cross as the wire text MPI carries (distributed/partial_json.hpp).
  const Topology tree = io::read_topology_file(std::string(PHASECHECK_SOURCE_DIR) +
                                               "/examples/faraj-yuan-fig1/topology.json");
  for (const char* name : {"linear", "faraj-yuan", "shift"}) {
    const schedules::Algorithm& a = *schedules::find_algorithm(name);
    const auto whole = pipeline::check_algorithm(a, tree, {});
    REQUIRE(whole);
    for (const std::uint32_t processes : {2u, 3u, 4u}) {
      INFO(name << " on " << processes << " processes");
      std::vector<verify::Verifier::Partial> partials;
      for (std::uint32_t rank = 1; rank < processes; ++rank) {
        pipeline::Spread spread;
        spread.share = {false, rank - 1, processes - 1};
        spread.gather = [&](const verify::Verifier::Partial& mine) {
          partials.push_back(distributed::from_wire(distributed::to_wire(mine)));
          return std::vector<verify::Verifier::Partial>{};
        };
        CHECK_FALSE(pipeline::check_algorithm(a, tree, {}, spread));  // no report there
      }
      pipeline::Spread root;
      root.share = {true, 0, 0};
      root.threads = 2;
      root.gather = [&](const verify::Verifier::Partial&) { return partials; };
      CHECK(pipeline::check_algorithm(a, tree, {}, root) == whole);
    }
  }
}

TEST_CASE("check: direct phases over many batches and 2 or 3 threads, the same report") {
  // 32 x 32 machines: faraj-yuan's 31,744 phases and shift's million transfers fill many batches
  // (1,024 phases or 2^15 transfers each), reused from the pool, with the reading thread judging
  // its share or handing it over as the worker keeps up; shift's contention is drawn from a batch.
  const std::uint64_t fanout[] = {32, 32};
  const Topology tree = tree_network(fanout);
  for (const char* name : {"faraj-yuan", "shift"}) {
    const schedules::Algorithm& a = *schedules::find_algorithm(name);
    REQUIRE(a.generate_direct);
    const auto one = pipeline::check_algorithm(a, tree, {});
    REQUIRE(one);
    CHECK(one->counts.phases > 1000);
    for (const unsigned threads : {2u, 3u}) {
      INFO(name << " on " << threads << " threads");
      pipeline::Spread spread;
      spread.threads = threads;
      CHECK(pipeline::check_algorithm(a, tree, {}, spread) == one);
    }
  }
}

TEST_CASE("check: blocks of phases claimed by any process, the findings merged, same report") {
  // What `mpirun -np N` does with claims (distributed/processes.hpp), in one process: every
  // process may judge any block's phase-local checks and exactly one takes each; here block b
  // goes to a process drawn from b, so every process gets some, process 0 (the stateful one)
  // included, and the merged report must not tell. 32 x 32 machines: an all-to-all's million
  // messages make 16 blocks or more (a block ends at 2^16 transfers or 1024 phases).
  const std::uint64_t fanout[] = {32, 32};
  const Topology tree = tree_network(fanout);
  for (const char* name : {"faraj-yuan", "shift", "randomized-sendrecv"}) {
    const schedules::Algorithm& a = *schedules::find_algorithm(name);
    const auto whole = pipeline::check_algorithm(a, tree, {});
    REQUIRE(whole);
    for (const std::uint32_t processes : {2u, 3u}) {
      INFO(name << " on " << processes << " processes");
      const auto owner = [processes](std::uint64_t b) {
        return (b * 2654435761u >> 7) % processes;
      };
      std::vector<verify::Verifier::Partial> partials;
      std::vector<std::uint64_t> taken(processes);
      const auto spread_of = [&](std::uint32_t rank) {
        pipeline::Spread spread;
        spread.share = {rank == 0, 0, 1};
        spread.threads = rank == 0 ? 2 : 1;
        spread.claim = [&, rank](std::uint64_t b) {
          taken[rank] += owner(b) == rank ? 1 : 0;
          return owner(b) == rank;
        };
        return spread;
      };
      for (std::uint32_t rank = 1; rank < processes; ++rank) {
        pipeline::Spread spread = spread_of(rank);
        spread.gather = [&](const verify::Verifier::Partial& mine) {
          partials.push_back(distributed::from_wire(distributed::to_wire(mine)));
          return std::vector<verify::Verifier::Partial>{};
        };
        CHECK_FALSE(pipeline::check_algorithm(a, tree, {}, spread));
      }
      pipeline::Spread root = spread_of(0);
      root.gather = [&](const verify::Verifier::Partial&) { return partials; };
      CHECK(pipeline::check_algorithm(a, tree, {}, root) == whole);
      for (std::uint32_t rank = 0; rank < processes; ++rank) CHECK(taken[rank] > 0);
    }
  }
}

TEST_CASE("check: an error in a checking thread reaches the caller") {
  // The memory limit refuses the delivery state's growth in the stateful worker thread; the
  // check throws it as InputError, as one thread would. (Shift's arrivals at a rank become two
  // runs, then a bitset of a word, from about the 32nd rank on past the limit.)
  const Limits saved = limits();
  Limits l = saved;
  l.max_memory_bytes = verify::DeliveryChecker::memory_bytes(64);
  set_limits(l);
  pipeline::Spread spread;
  spread.threads = 2;
  CHECK_THROWS_AS(pipeline::check_algorithm(*schedules::find_algorithm("shift"),
                                               FullyConnected(64, 1), {}, spread),
                  InputError);
  set_limits(saved);
}

TEST_CASE(
    "verify: a file checked by 2 or 3 threads (the reading thread only parses) reports alike") {
  // verify_file gives the reading thread no check (verify::Reader::parses): the stateful worker
  // takes the phase-local checks too, or shares them with the third thread.
  const Topology tree = io::read_topology_file(std::string(PHASECHECK_SOURCE_DIR) +
                                               "/examples/faraj-yuan-fig1/topology.json");
  const auto dir = std::filesystem::temp_directory_path() / "phasecheck-test-verify-threads";
  std::filesystem::create_directories(dir);
  for (const char* name : {"linear", "faraj-yuan", "shift"}) {
    const schedules::Algorithm& a = *schedules::find_algorithm(name);
    const ScheduleHeader header = schedules::make_header(a, tree, {});
    const std::string path = (dir / (std::string(name) + ".json")).string();
    {
      std::ofstream out(path);
      io::ScheduleWriter writer(out, header);
      a.generate(header, writer.sink());
      writer.finish();
    }
    const std::optional<verify::Report> one = pipeline::verify_file(path, "", {}).report;
    REQUIRE(one);
    CHECK(one == pipeline::check_algorithm(a, tree, {}));
    for (const unsigned threads : {2u, 3u}) {
      INFO(name << " with " << threads << " threads");
      pipeline::Spread spread;
      spread.threads = threads;
      CHECK(pipeline::verify_file(path, "", spread).report == one);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("verify_file: a table observer sees every phase of the table, a program's as its table") {
  const std::filesystem::path source(PHASECHECK_SOURCE_DIR);
  for (const auto& [file, phases, transfers] :
       {std::tuple{"examples/ring-6/ring.json", 5, 30},
        std::tuple{"tests/cli/msccl/alltoall-3.xml", 2, 6}}) {
    CAPTURE(file);
    std::size_t seen = 0, sent = 0;
    const auto observe = [&](const ScheduleHeader& header, const Topology& model) -> PhaseSink {
      CHECK(ranks(model) == header.ranks());
      return [&](const Phase& p) {
        ++seen;
        for (const Transfer& t : p.transfers()) sent += t.local() ? 0 : 1;
      };
    };
    const pipeline::Verified v = pipeline::verify_file((source / file).string(), "", {}, observe);
    CHECK(seen == std::size_t(phases));
    CHECK(sent == std::size_t(transfers));  // an MSCCL program's sends, as its table
    CHECK(v.report->counts.transfers >= sent);
  }
  // One thread only: a worker would call the observer behind the reader's back.
  pipeline::Spread two;
  two.threads = 2;
  CHECK_THROWS_AS(
      pipeline::verify_file((source / "examples/ring-6/ring.json").string(), "", two,
                            [](const ScheduleHeader&, const Topology&) { return PhaseSink{}; }),
      std::logic_error);
}

namespace {

/// `n` processes of a check split by phase range (pipeline::Spread::Ranges), as threads of this
/// one: their exchange and gather go through memory, each a meeting of all n, and the findings
/// cross in the wire format (distributed/partial_json.hpp). `spoil`: process 0 finds that
/// process 1's destinations do not fit, which must send it to the whole check.
class RangeProcesses {
 public:
  RangeProcesses(std::uint32_t n, bool spoil)
      : n_(n), spoil_(spoil), meet_(n), words_(n), findings_(n) {}

  pipeline::Spread::Ranges ranges(std::uint32_t k) {
    pipeline::Spread::Ranges r;
    r.index = k;
    r.count = n_;
    r.exchange = [this, k](const std::vector<std::vector<std::uint32_t>>& out) {
      words_[k] = out;
      meet_.arrive_and_wait();
      std::vector<std::vector<std::uint32_t>> in;
      for (std::uint32_t j = 0; j < n_; ++j) in.push_back(words_[j][k]);
      ++exchanged_;
      meet_.arrive_and_wait();
      return in;
    };
    r.gather = [this, k](const verify::Verifier::RangeFindings& mine) {
      findings_[k] = distributed::range_findings_from_wire(distributed::to_wire(mine));
      meet_.arrive_and_wait();
      std::vector<verify::Verifier::RangeFindings> all;
      if (k == 0) all = findings_;
      if (k == 0)
        for (const auto& f : findings_) every_range_fits_ = every_range_fits_ && f.clean && f.fits;
      if (k == 0 && spoil_) all[1].fits = false;
      meet_.arrive_and_wait();
      return all;
    };
    return r;
  }
  /// Process 0's report, each process on a thread of its own with `threads` checking threads.
  std::optional<verify::Report> check(const schedules::Algorithm& a, const Topology& model,
                                      unsigned threads) {
    std::vector<std::optional<verify::Report>> reports(n_);
    std::vector<std::thread> processes;
    for (std::uint32_t k = 0; k < n_; ++k)
      processes.emplace_back([&, k] {
        pipeline::Spread spread;
        spread.threads = threads;
        spread.ranges = ranges(k);
        reports[k] = pipeline::check_algorithm(a, model, {}, spread);
      });
    for (auto& p : processes) p.join();
    for (std::uint32_t k = 1; k < n_; ++k) CHECK_FALSE(reports[k]);
    return reports[0];
  }
  /// Exchanges made, one a process: the split ran.
  std::uint32_t exchanged() const { return exchanged_; }
  /// Whether every range was clean and fitted (before any spoiling): the ranges made the report,
  /// not the whole check.
  bool every_range_fits() const { return every_range_fits_; }

 private:
  std::uint32_t n_;
  bool spoil_;
  std::barrier<> meet_;
  std::vector<std::vector<std::vector<std::uint32_t>>> words_;  // [from][to]
  std::vector<verify::Verifier::RangeFindings> findings_;
  std::atomic<std::uint32_t> exchanged_{0};
  bool every_range_fits_ = true;  // process 0's, written between two meetings
};

}  // namespace

TEST_CASE("check: split by phase range over processes, the same report") {
  // What `mpirun -np N phasecheck check` does with an algorithm of direct phases: each process
  // makes and judges its range of phases alone, the arrivals cross to the processes holding their
  // destinations, and process 0 makes the report from the ranges' findings; with findings that
  // cannot make it (spoiled here), process 0 checks the whole schedule itself.
  const std::uint64_t fanout[] = {8, 8};
  const Topology tree = tree_network(fanout);
  const Topology cube = Hypercube(5);
  const std::pair<const char*, const Topology*> cases[] = {
      {"faraj-yuan", &tree}, {"shift", &tree}, {"hypercube-pairwise", &cube}, {"factor", &cube}};
  for (const auto& [name, model] : cases) {
    const schedules::Algorithm& a = *schedules::find_algorithm(name);
    const auto whole = pipeline::check_algorithm(a, *model, {});
    REQUIRE(whole);
    // Shift collides on the tree: contention's counterexample comes from the ranges' merge.
    const bool passes = whole->verdict() == verify::Verdict::pass;
    CHECK(passes == (std::string(name) != "shift"));
    for (const std::uint32_t n : {2u, 3u})
      for (const unsigned threads : {1u, 2u})
        for (const bool spoil : {false, true}) {
          INFO(name << " in " << n << " ranges, " << threads << " threads, spoiled " << spoil);
          RangeProcesses processes(n, spoil);
          CHECK(processes.check(a, *model, threads) == whole);
          CHECK(processes.exchanged() == n);
          CHECK(processes.every_range_fits());
        }
  }
}

TEST_CASE("check: a range refused by the memory limit sends process 0 to the whole check") {
  // pairwise-xor on 1,024 ranks: the third of three ranges keeps more runs of origins per
  // destination than the whole check does, and passes the limit under which one process passes.
  // The refused range sends nothing; process 0 checks the schedule whole and gives one process's
  // report. (The limit is per process: a split may also fit where one process does not.)
  const schedules::Algorithm& a = *schedules::find_algorithm("pairwise-xor");
  const Topology machine = FullyConnected(1024, 1);
  const Limits saved = limits();
  Limits l = saved;
  l.max_memory_bytes = 83977;
  set_limits(l);
  const auto one = pipeline::check_algorithm(a, machine, {});
  RangeProcesses processes(3, false);
  const auto split = processes.check(a, machine, 1);
  set_limits(saved);
  REQUIRE(one);
  CHECK(one->verdict() == verify::Verdict::pass);
  CHECK(split == one);
  CHECK(processes.exchanged() == 3);
  CHECK_FALSE(processes.every_range_fits());
}
