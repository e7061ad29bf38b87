// lint msccl (verify/msccl_lint.hpp): each finding on a program that has exactly that problem,
// none on a clean one; size coverage across files.
#include <doctest/doctest.h>

#include <algorithm>

#include "verify/msccl_lint.hpp"

using namespace phasecheck;
using msccl::StepType;
using verify::LintFinding;
using verify::LintInput;
using verify::Severity;

namespace {

msccl::Step step(std::uint32_t index, StepType type, std::uint32_t count = 1) {
  msccl::Step s;
  s.index = index;
  s.type = type;
  s.count = count;
  s.line = 10 + index;
  return s;
}

/// A 2-gpu direct alltoall with every attribute RCCL wants: lint finds nothing in it.
msccl::Program clean(std::int64_t min_bytes = 0, std::int64_t max_bytes = 0) {
  msccl::Program p;
  p.name = "t";
  p.protocol = "Simple";
  p.coll = "alltoall";
  p.ngpus = 2;
  p.nchunksperloop = 2;
  p.nchannels = 1;
  p.inplace = false;
  p.outofplace = true;
  p.min_bytes = min_bytes;
  p.max_bytes = max_bytes;
  p.line = 1;
  for (std::uint32_t g = 0; g < 2; ++g) {
    msccl::Gpu gpu;
    gpu.id = g;
    gpu.line = 2 + 5 * g;
    msccl::Threadblock copy;
    copy.id = 0;
    copy.line = gpu.line + 1;
    copy.steps = {step(0, StepType::copy)};
    msccl::Threadblock peer;
    peer.id = 1;
    peer.send = peer.recv = static_cast<std::int32_t>(1 - g);
    peer.line = gpu.line + 2;
    peer.steps = {step(0, StepType::send), step(1, StepType::receive)};
    gpu.threadblocks = {copy, peer};
    p.gpus.push_back(gpu);
  }
  return p;
}

std::vector<LintFinding> lint_one(const msccl::Program& p) {
  return verify::lint_file(LintInput{"t.xml", p});
}

std::vector<std::string> codes(const std::vector<LintFinding>& findings) {
  std::vector<std::string> out;
  for (const LintFinding& f : findings) out.push_back(f.code);
  return out;
}

/// The one finding of `p`, which must have exactly one.
LintFinding only(const msccl::Program& p) {
  const std::vector<LintFinding> f = lint_one(p);
  REQUIRE(f.size() == 1);
  return f.front();
}

}  // namespace

TEST_CASE("lint: a clean program has no finding, and its size range is what it says") {
  CHECK(lint_one(clean()).empty());
  CHECK(verify::size_range(clean(0, 0)) == verify::SizeRange{0, std::nullopt});
  CHECK(verify::size_range(clean(16, 16)) == verify::SizeRange{16, 16});
  CHECK_FALSE(verify::size_range(clean(17, 16)));
  msccl::Program p = clean();
  p.max_bytes.reset();
  CHECK_FALSE(verify::size_range(p));
}

TEST_CASE("lint: every attribute RCCL's loader requires is named when missing") {
  msccl::Program p = clean();
  p.protocol.reset();
  p.nchannels.reset();
  p.inplace.reset();
  p.outofplace.reset();
  p.min_bytes.reset();
  p.max_bytes.reset();
  const std::vector<LintFinding> f = lint_one(p);
  REQUIRE(f.size() == 6);
  for (const LintFinding& x : f) {
    CHECK(x.code == "missing-attribute");
    CHECK(x.severity == Severity::error);
    CHECK(x.line == 1);
  }
  CHECK(f[0].message.find("no proto") != std::string::npos);
  CHECK(f[4].message.find("no minBytes") != std::string::npos);
}

TEST_CASE("lint: values a runtime cannot use") {
  msccl::Program p = clean();
  p.protocol = "LL256";
  CHECK(only(p).code == "protocol");

  p = clean();
  p.min_bytes = 4096;
  p.max_bytes = 1024;
  const LintFinding inverted = only(p);
  CHECK(inverted.code == "inverted-size-range");
  CHECK(inverted.message.find("minBytes=\"4096\" > maxBytes=\"1024\"") != std::string::npos);

  p = clean(4096, 0);  // maxBytes 0 is "no limit", not an inverted range
  CHECK(lint_one(p).empty());

  p = clean();
  p.inplace = false;
  p.outofplace = false;
  CHECK(only(p).code == "never-selected");

  p = clean();
  p.nchannels = 33;
  CHECK(codes(lint_one(p)) == std::vector<std::string>{"channels"});
  p.nchannels = 0;
  CHECK(codes(lint_one(p)) == std::vector<std::string>{"channels", "channel-out-of-range",
                                                       "channel-out-of-range", "channel-out-of-range",
                                                       "channel-out-of-range"});
}

TEST_CASE("lint: nchunksperloop must be a multiple of ngpus for partitioned collectives only") {
  msccl::Program p = clean();
  p.nchunksperloop = 3;
  const LintFinding f = only(p);
  CHECK(f.code == "chunks-per-loop");
  CHECK(f.message.find("nchunksperloop=\"3\" is not a multiple of ngpus=\"2\"") != std::string::npos);
  p.coll = "allreduce";  // an allreduce's chunks need not be split by gpu
  CHECK(lint_one(p).empty());
}

TEST_CASE("lint: threadblocks, channels and steps") {
  SUBCASE("a threadblock beyond nchannels, and the channel nobody uses") {
    msccl::Program p = clean();
    p.nchannels = 2;
    p.gpus[1].threadblocks[1].channel = 2;
    const std::vector<LintFinding> f = lint_one(p);
    CHECK(codes(f) == std::vector<std::string>{"unused-channel", "channel-out-of-range"});
    CHECK(f[0].severity == Severity::warning);
    CHECK(f[1].severity == Severity::error);
    CHECK(f[1].line == p.gpus[1].threadblocks[1].line);
    CHECK(f[1].message.find("threadblock 1 of gpu 1: chan=\"2\" but nchannels=\"2\"") !=
          std::string::npos);
  }
  SUBCASE("an idle threadblock and a peer never used") {
    msccl::Program p = clean();
    msccl::Threadblock idle;
    idle.id = 2;
    idle.line = 40;
    idle.steps = {step(0, StepType::nop, 0)};
    p.gpus[0].threadblocks.push_back(idle);
    p.gpus[1].threadblocks[1].steps = {step(0, StepType::receive)};  // sends to gpu 0 never
    const std::vector<LintFinding> f = lint_one(p);
    CHECK(codes(f) == std::vector<std::string>{"unused-peer", "unused-threadblock"});
    CHECK(f[0].message.find("send=\"0\" but no step sends") != std::string::npos);
    CHECK(f[1].line == 40);
  }
  SUBCASE("threadblock ids with a hole") {
    msccl::Program p = clean();
    p.gpus[0].threadblocks[1].id = 3;
    const LintFinding f = only(p);
    CHECK(f.code == "threadblock-ids");
    CHECK(f.message.find("no threadblock 1") != std::string::npos);
  }
  SUBCASE("RCCL's limits: steps, chunks per step, threadblocks") {
    msccl::Program p = clean();
    p.gpus[0].threadblocks[0].steps.assign(msccl::kMaxSteps, step(0, StepType::copy));
    CHECK(lint_one(p).empty());
    p.gpus[0].threadblocks[0].steps.push_back(step(0, StepType::copy));
    CHECK(only(p).code == "too-many-steps");

    p = clean();
    p.gpus[1].threadblocks[0].steps[0].count = msccl::kMaxCount;
    CHECK(lint_one(p).empty());
    p.gpus[1].threadblocks[0].steps[0].count = msccl::kMaxCount + 1;
    CHECK(only(p).code == "count-too-large");

    p = clean();
    p.nchannels = 8;
    for (std::uint32_t i = 2; i < msccl::kMaxThreadblocks + 1; ++i) {
      msccl::Threadblock t;
      t.id = i;
      t.channel = i % 8;
      t.steps = {step(0, StepType::copy)};
      p.gpus[0].threadblocks.push_back(t);
    }
    const LintFinding f = only(p);
    CHECK(f.code == "too-many-threadblocks");
    CHECK(f.message.find("217 threadblocks") != std::string::npos);

    p = clean();
    for (std::uint32_t i = 2; i < 33; ++i) {  // 33 on channel 0 in all
      msccl::Threadblock t;
      t.id = i;
      t.steps = {step(0, StepType::copy)};
      p.gpus[0].threadblocks.push_back(t);
    }
    CHECK(only(p).message.find("33 threadblocks on channel 0") != std::string::npos);
  }
}

TEST_CASE("lint: size coverage across files") {
  const auto run = [](std::vector<std::pair<std::string, msccl::Program>> files) {
    std::vector<LintInput> in;
    for (auto& [name, p] : files) in.push_back({name, std::move(p)});
    return verify::lint(in);
  };

  SUBCASE("adjacent ranges: no finding; the groups list the claims by minBytes") {
    const verify::LintReport r = run({{"b.xml", clean(1024, 0)}, {"a.xml", clean(0, 1023)}});
    CHECK(r.findings.empty());
    CHECK(r.errors() == 0);
    REQUIRE(r.coverage.size() == 1);
    CHECK(r.coverage[0].claims[0].file == "a.xml");
    CHECK(r.coverage[0].claims[1].file == "b.xml");
    CHECK_FALSE(r.coverage[0].in_place);
  }
  SUBCASE("ranges that share one size overlap (bounds are inclusive)") {
    const verify::LintReport r = run({{"a.xml", clean(0, 1024)}, {"b.xml", clean(1024, 0)}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].code == "overlap");
    CHECK(r.findings[0].severity == Severity::error);
    CHECK(r.findings[0].message.find("b.xml and a.xml both claim sizes [1024, 1024]") !=
          std::string::npos);
    CHECK(r.errors() == 1);
  }
  SUBCASE("every overlapping pair once, an unlimited range included") {
    const verify::LintReport r =
        run({{"a.xml", clean(0, 0)}, {"b.xml", clean(100, 200)}, {"c.xml", clean(150, 0)}});
    CHECK(codes(r.findings) == std::vector<std::string>{"overlap", "overlap", "overlap"});
    CHECK(r.findings[2].message.find("c.xml and b.xml both claim sizes [150, 200]") !=
          std::string::npos);
  }
  SUBCASE("a gap between two ranges is a warning; nothing below the first or above the last") {
    const verify::LintReport r =
        run({{"a.xml", clean(4096, 8191)}, {"b.xml", clean(65536, 1048576)}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].code == "gap");
    CHECK(r.findings[0].severity == Severity::warning);
    CHECK(r.findings[0].message.find("[8192, 65535]") != std::string::npos);
    CHECK(r.errors() == 0);
    CHECK(r.warnings() == 1);
  }
  SUBCASE("a range inside a longer one leaves no gap after the shorter") {
    const verify::LintReport r =
        run({{"a.xml", clean(0, 1000)}, {"b.xml", clean(10, 20)}, {"c.xml", clean(1001, 0)}});
    CHECK(codes(r.findings) == std::vector<std::string>{"overlap"});
  }
  SUBCASE("groups: collective, gpu count and variant are apart") {
    msccl::Program in_place = clean(0, 0);
    in_place.inplace = true;
    in_place.outofplace = false;
    msccl::Program gather = clean(0, 0);
    gather.coll = "allgather";
    msccl::Program four = clean(0, 0);
    four.ngpus = 4;
    four.nchunksperloop = 4;
    const verify::LintReport r = run(
        {{"a.xml", clean(0, 0)}, {"b.xml", in_place}, {"c.xml", gather}, {"d.xml", four}});
    CHECK(r.findings.empty());
    CHECK(r.coverage.size() == 4);
  }
  SUBCASE("a file declaring both variants is in both groups") {
    msccl::Program both = clean(0, 0);
    both.inplace = true;
    msccl::Program in_place = clean(0, 0);
    in_place.inplace = true;
    in_place.outofplace = false;
    const verify::LintReport r = run({{"a.xml", both}, {"b.xml", in_place}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].message.find("(alltoall, 2 gpus, in-place)") != std::string::npos);
  }
  SUBCASE("a file without a usable range claims nothing") {
    const verify::LintReport r = run({{"a.xml", clean(0, 0)}, {"b.xml", clean(10, 5)}});
    CHECK(codes(r.findings) == std::vector<std::string>{"inverted-size-range"});
    REQUIRE(r.coverage.size() == 1);
    CHECK(r.coverage[0].claims.size() == 1);
  }
}

TEST_CASE("lint's verdict: an error fails, warnings alone pass") {
  verify::LintReport r;
  CHECK(r.verdict() == verify::Verdict::pass);
  r.findings.push_back({});
  r.findings.back().severity = verify::Severity::warning;
  CHECK(r.verdict() == verify::Verdict::pass);
  r.findings.push_back({});
  r.findings.back().severity = verify::Severity::error;
  CHECK(r.verdict() == verify::Verdict::fail);
}
