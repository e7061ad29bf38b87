// record/recording.hpp: a recording written by hand (synthetic_recording.hpp) reads back as it
// was written, and each malformed one is refused with an InputError naming the file and line.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "record/recording.hpp"
#include "tests/record/synthetic_recording.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;

namespace {

/// The message read_recording() refuses `files` with ("" when it reads them).
std::string refusal(const std::vector<RankFiles>& files) {
  const ScratchDirectory dir;
  write_recording(dir.path(), files);
  try {
    record::read_recording(dir.path().string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("read_recording: a synthetic recording reads back as it was written") {
  const SyntheticRun run = pairwise_alltoall(3, 2);
  const ScratchDirectory dir;
  write_recording(dir.path(), render(run));
  const record::Recording rec = record::read_recording(dir.path().string());
  CHECK(rec.ranks == 3);
  CHECK(rec.count == 2);
  CHECK(rec.collective == Collective::alltoall);
  CHECK(rec.library == run.library);
  REQUIRE(rec.rank.size() == 3);
  for (Rank r = 0; r < 3; ++r) {
    const record::RankRecording& rr = rec.rank[r];
    REQUIRE(rr.events.size() == run.rank[r].events.size());
    REQUIRE(rr.send.has_value());
    CHECK(rr.send->layout == run.rank[r].send_layout);
    CHECK(rr.recv.layout == run.rank[r].recv_layout);
    CHECK(rr.recv.base == run.rank[r].recv_base);
    REQUIRE(rr.final_recv.has_value());
    const auto final_recv = rr.bytes(*rr.final_recv);
    CHECK(std::vector<std::uint8_t>(final_recv.begin(), final_recv.end()) ==
          run.rank[r].recv_final);
    REQUIRE(rr.end.has_value());
    CHECK(rr.end->status == record::End::Status::ok);
    const record::Event& first = rr.events[0];
    CHECK(first.kind == record::Event::Kind::send);
    CHECK(first.tag == kSyntheticTag);
    CHECK(first.line == 2);
    const auto payload = rr.bytes(first.payload);
    CHECK(payload.size() == 16);
    CHECK(record::word_at(payload, 0) == run.rank[r].events[0].payload[0]);
  }
}

TEST_CASE("read_recording: malformed recordings are refused, naming file and line") {
  const std::vector<RankFiles> good = render(pairwise_alltoall(3, 2));
  REQUIRE(refusal(good).empty());

  SUBCASE("a line that is not JSON") {
    auto files = good;
    files[1].lines[2] = R"({"ev":"send","id":)";
    CHECK(contains(refusal(files), "rank-1.jsonl:3: invalid JSON"));
  }
  SUBCASE("a number beyond double (the fuzz finding of issue 35's CI)") {
    auto files = good;
    files[1].lines[2] = R"({"ev":"send","id":1e400})";
    CHECK(contains(refusal(files), "rank-1.jsonl:3: invalid JSON"));
    CHECK(contains(refusal(files), "1e400"));
  }
  SUBCASE("a payload beyond the .bin") {
    auto files = good;
    std::string& line = files[0].lines[1];  // rank 0's first send
    REQUIRE(contains(line, "\"payload\":["));
    const std::size_t at = line.find("\"payload\":[");
    line.replace(at, line.find(']', at) + 1 - at,
                 "\"payload\":[" + std::to_string(files[0].bin.size() - 8) + ",16]");
    CHECK(contains(refusal(files), "rank-0.jsonl:2: \"payload\" points beyond the .bin file (" +
                                       std::to_string(files[0].bin.size()) + " bytes)"));
  }
  SUBCASE("a missing rank file") {
    auto files = good;
    files.pop_back();
    CHECK(contains(refusal(files), "no rank-2.jsonl (the run has 3 ranks)"));
  }
  SUBCASE("a header of another run") {
    SyntheticRun other = pairwise_alltoall(3, 2);
    other.library = "Open MPI v4.1.5, another";
    auto files = good;
    files[2] = render(other, 2);
    CHECK(contains(refusal(files), "rank-2.jsonl: describes another run than rank-0.jsonl"));
  }
  SUBCASE("an unknown event") {
    auto files = good;
    files[0].lines.insert(files[0].lines.begin() + 3, R"({"ev":"barrier"})");
    CHECK(contains(refusal(files), "rank-0.jsonl:4: unknown event \"barrier\""));
  }
  SUBCASE("a rank file that says it is another rank") {
    auto files = good;
    files[1] = files[2];
    CHECK(contains(refusal(files), "rank-1.jsonl: says it is rank 2"));
  }
}
