// The Open MPI models against what Open MPI 4.1.4 itself sent: the fixture
// open-mpi-4.1.4-sent.txt (made by scripts/ompi-sent-fixture from `phasecheck record mpi -o`
// runs at p = 2 .. 16, count 1, contiguous) lists every recorded message, phase by phase. For each
// case the model of what Open MPI ran there (its fallbacks included: recursive doubling off powers
// of two is Bruck, neighbor exchange at odd p is ring) must make every rank send the same messages
// (destination and bytes) in the same order. The recording levels a rank's messages one per phase
// in program order (docs/record.md), so its phases give each rank's order; the model's is its
// program's sends, phase by phase, in the order it posts them. That covers every ordered pair's
// messages and bytes.

#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

namespace {

constexpr std::uint64_t kElementBytes = 8;  // record's elements; count 1: one per block

/// Per rank, the messages it sends in order: (destination, bytes).
using Messages = std::map<Rank, std::vector<std::pair<Rank, std::uint64_t>>>;

struct SentCase {
  std::string collective;
  std::string algorithm;  ///< Open MPI's name; "-inplace" for MPI_IN_PLACE
  Rank p = 0;
  Messages sent;
};

std::vector<SentCase> read_fixture() {
  std::ifstream in(PHASECHECK_SOURCE_DIR "/tests/schedules/ompi/open-mpi-4.1.4-sent.txt");
  REQUIRE(in.good());
  std::vector<SentCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    SentCase c;
    std::string word;
    words >> c.collective >> c.algorithm >> c.p >> word;
    REQUIRE(word == "|");
    while (words >> word) {
      if (word == "|") continue;  // the next phase: each rank's next message
      unsigned src = 0, dst = 0;
      unsigned long long bytes = 0;
      REQUIRE(std::sscanf(word.c_str(), "%u>%u:%llu", &src, &dst, &bytes) == 3);
      c.sent[src].emplace_back(dst, bytes);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

/// The registered model of what Open MPI 4.1.4 runs for `c` (coll_base_alltoall.c and
/// coll_base_allgather.c: the fallbacks as the functions call them).
std::pair<std::string, Parameters> model_of(const SentCase& c) {
  Parameters parameters;
  parameters.set("collective", c.collective);
  const bool power_of_two = (c.p & (c.p - 1)) == 0;
  static const std::map<std::string, std::string> alltoall = {{"pairwise", "ompi-pairwise"},
                                                              {"linear_sync", "ompi-linear-sync"},
                                                              {"two_proc", "ompi-two-procs"},
                                                              {"pairwise-inplace", "ompi-inplace"}};
  if (c.collective == "alltoall") return {alltoall.at(c.algorithm), parameters};
  if (c.algorithm == "recursive_doubling")
    return {power_of_two ? "ompi-recursive-doubling" : "ompi-bruck-k", parameters};
  if (c.algorithm == "neighbor")
    return {c.p % 2 == 0 ? "ompi-neighbor-exchange" : "ompi-ring", parameters};
  if (c.algorithm == "ring") return {"ompi-ring", parameters};
  REQUIRE(c.algorithm == "two_proc");
  return {"ompi-two-procs", parameters};
}

/// The model's sends: its program's ops between ranks, phase by phase, in posting order (one op
/// is one message in these models).
Messages messages_of(const std::string& name, Rank p, const Parameters& parameters) {
  const Schedule program = program_of(name, p, parameters);
  Messages out;
  for (const Phase& phase : program.phases)
    for (const BufferOp& op : phase.ops())
      if (!op.local()) out[op.src].emplace_back(op.dst, kElementBytes * op.count);
  return out;
}

std::string sends_text(const std::vector<std::pair<Rank, std::uint64_t>>& list) {
  std::string s;
  for (const auto& [dst, bytes] : list)
    s += " " + std::to_string(dst) + ":" + std::to_string(bytes);
  return s;
}

/// The first rank whose sends differ, described; empty when none does.
std::string difference(const Messages& model, const Messages& sent) {
  Messages both = model;
  both.insert(sent.begin(), sent.end());  // every rank either side sends from
  for (const auto& [rank, unused] : both) {
    const auto m = model.find(rank);
    const auto s = sent.find(rank);
    const std::vector<std::pair<Rank, std::uint64_t>> none;
    const auto& model_sends = m == model.end() ? none : m->second;
    const auto& sent_sends = s == sent.end() ? none : s->second;
    if (model_sends != sent_sends)
      return "rank " + std::to_string(rank) + " sent" + sends_text(sent_sends) +
             "; the model sends" + sends_text(model_sends);
  }
  return {};
}

}  // namespace

TEST_CASE("Open MPI models: the messages Open MPI 4.1.4 sent at p = 2 .. 16, pair by pair") {
  const std::vector<SentCase> cases = read_fixture();
  std::map<std::string, std::vector<Rank>> covered;
  int compared = 0;
  for (const SentCase& c : cases) {
    const auto [name, parameters] = model_of(c);
    INFO(c.collective << " " << c.algorithm << " p = " << c.p << " against " << name);
    CHECK(difference(messages_of(name, c.p, parameters), c.sent) == "");
    covered[c.collective + " " + c.algorithm].push_back(c.p);
    ++compared;
  }
  // Every algorithm Debian's Open MPI has, at every p it runs (two_proc only at 2).
  CHECK(compared == 92);
  for (const char* every_p :
       {"alltoall pairwise", "alltoall linear_sync", "alltoall pairwise-inplace",
        "allgather recursive_doubling", "allgather ring", "allgather neighbor"})
    CHECK(covered[every_p].size() == 15);
  CHECK(covered["alltoall two_proc"] == std::vector<Rank>{2});
  CHECK(covered["allgather two_proc"] == std::vector<Rank>{2});
}

TEST_CASE("Open MPI models: the comparison tells algorithms apart") {
  const std::vector<SentCase> cases = read_fixture();
  int runs = 0;
  for (const SentCase& c : cases) {
    Parameters parameters;
    parameters.set("collective", c.collective);
    // Pairwise's p - 1 steps are not linear-sync's one batch; ring's single blocks are not
    // neighbor exchange's pairs.
    if (c.algorithm == "pairwise" && c.p == 5) {
      CHECK(difference(messages_of("ompi-linear-sync", 5, parameters), c.sent) != "");
      ++runs;
    }
    if (c.algorithm == "ring" && c.p == 6) {
      CHECK(difference(messages_of("ompi-neighbor-exchange", 6, parameters), c.sent) != "");
      ++runs;
    }
  }
  CHECK(runs == 2);
}
