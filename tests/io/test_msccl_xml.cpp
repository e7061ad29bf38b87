// MSCCL XML: the reader, the writer, the execution model and the exporter (docs/msccl.md).
#include <doctest/doctest.h>

#include "core/error.hpp"
#include "core/msccl.hpp"
#include "io/msccl_xml.hpp"
#include "programs/msccl_export.hpp"
#include "schedules/buffers.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

/// A two-gpu alltoall: each gpu copies its own chunk and sends the other one; `receive_first`
/// makes both threadblocks receive before they send (a deadlock).
std::string two_gpus(bool receive_first, const std::string& extra_step = "") {
  std::string xml =
      "<algo name=\"t\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" "
      "coll=\"alltoall\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n";
  for (int g = 0; g < 2; ++g) {
    const std::string o = std::to_string(1 - g), me = std::to_string(g);
    const auto send = [&](int i) {
      return "<step s=\"" + std::to_string(i) + "\" type=\"s\" srcbuf=\"i\" srcoff=\"" + o +
             "\" dstbuf=\"o\" dstoff=\"" + me + "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
    };
    const auto recv = [&](int i) {
      return "<step s=\"" + std::to_string(i) + "\" type=\"r\" srcbuf=\"i\" srcoff=\"" + me +
             "\" dstbuf=\"o\" dstoff=\"" + o + "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
    };
    const std::string steps = receive_first ? recv(0) + send(1) : send(0) + recv(1);
    xml += "<gpu id=\"" + me + "\" i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\">\n"
           "<tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\"><step s=\"0\" type=\"cpy\" srcbuf=\"i\" "
           "srcoff=\"" + me + "\" dstbuf=\"o\" dstoff=\"" + me +
           "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/></tb>\n"
           "<tb id=\"1\" send=\"" + o + "\" recv=\"" + o + "\" chan=\"0\">\n" + steps +
           (g == 0 ? extra_step : "") + "</tb>\n</gpu>\n";
  }
  return xml + "</algo>\n";
}

verify::Report judge(const std::string& xml) {
  const Schedule s = msccl::lower(io::parse_msccl(xml, "t.xml"), "t.xml");
  return verify::verify(s, s.header.topology);
}

}  // namespace

TEST_CASE("msccl: an exchange (send, then receive, in one threadblock) runs with buffered sends") {
  const verify::Report r = judge(two_gpus(false));
  CHECK(r.verdict() == verify::Verdict::pass);
  CHECK(r.checks.front().name == "execution");
}

TEST_CASE("msccl: receiving first on both sides is a deadlock naming the four steps") {
  const verify::Report r = judge(two_gpus(true));
  REQUIRE(r.checks.front().verdict == verify::Verdict::fail);
  const auto& x = *r.checks.front().counterexample;
  CHECK(x.explanation.starts_with("deadlock: these steps wait for each other in a cycle"));
  CHECK(x.steps.size() == 4);
  CHECK(x.steps.front() == StepRef{0, 1, 0});
}

TEST_CASE("msccl: a second send nobody receives is an unmatched send") {
  const std::string extra =
      "<step s=\"2\" type=\"s\" srcbuf=\"i\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
      "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
  const verify::Report r = judge(two_gpus(false, extra));
  REQUIRE(r.checks.front().verdict == verify::Verdict::fail);
  CHECK(r.checks.front().counterexample->explanation.starts_with(
      "unmatched send: gpu 0 tb 1 step 2 is send 2 from gpu 0 to gpu 1 on channel 0"));
}

TEST_CASE("msccl: malformed files name the file and line") {
  CHECK_THROWS_WITH_AS(io::parse_msccl("<algo ngpus=\"2\"", "x.xml"),
                       doctest::Contains("x.xml:1:"), InputError);
  std::string bad = two_gpus(false);
  bad.replace(bad.find("cnt=\"1\""), 7, "cnt=\"x\"");
  CHECK_THROWS_WITH_AS(io::parse_msccl(bad, "x.xml"),
                       doctest::Contains("x.xml:3:"), InputError);
  CHECK_THROWS_WITH_AS(io::parse_msccl(bad, "x.xml"),
                       doctest::Contains("cnt=\"x\" is not an integer"), InputError);
}

TEST_CASE("msccl: ngpus is a count in the file: nothing is sized from it, a missing gpu is named") {
  std::string xml = two_gpus(false);
  xml.replace(xml.find("ngpus=\"2\""), 9, "ngpus=\"1048576\"");
  CHECK_THROWS_WITH_AS(io::parse_msccl(xml, "x.xml"),
                       "x.xml:1:2: <algo>: ngpus=\"1048576\" but there is no <gpu id=\"2\">",
                       InputError);
  std::string first_missing = two_gpus(false);
  first_missing.replace(first_missing.find("ngpus=\"2\""), 9, "ngpus=\"3\"");
  first_missing.replace(first_missing.find("<gpu id=\"0\""), 11, "<gpu id=\"2\"");
  CHECK_THROWS_WITH_AS(io::parse_msccl(first_missing, "x.xml"),
                       doctest::Contains("ngpus=\"3\" but there is no <gpu id=\"0\">"), InputError);
}

TEST_CASE("msccl: the writer's output reads back as the same program") {
  const msccl::Program p = io::parse_msccl(two_gpus(false), "t.xml");
  msccl::Program q = io::parse_msccl(io::msccl_to_xml(p), "again.xml");
  const auto strip = [](msccl::Program x) {
    x.line = 0;
    for (auto& g : x.gpus) {
      g.line = 0;
      for (auto& t : g.threadblocks) {
        t.line = 0;
        for (auto& s : t.steps) s.line = 0;
      }
    }
    return x;
  };
  CHECK(strip(p) == strip(q));
}

TEST_CASE("msccl: every registered algorithm exports to XML that verifies when read back") {
  const Topology machines[] = {FullyConnected(5, 1), FullyConnected(8, 2)};
  int exported = 0;
  for (const auto& algorithm : schedules::algorithms())
    for (const Topology& machine : machines) {
      Schedule program;
      try {
        program = schedules::generate_program(algorithm,
                                              schedules::make_header(algorithm, machine, {}));
      } catch (const InputError&) {
        continue;  // not for this machine (a tree, a cluster, a power of two)
      }
      CAPTURE(algorithm.name);
      CAPTURE(describe(machine));
      const msccl::Program xml = programs::to_msccl(program, {.channels = 2});
      const std::string text = io::msccl_to_xml(xml);
      const Schedule back = msccl::lower(io::parse_msccl(text, "export.xml"), "export.xml");
      const verify::Report r = verify::verify(back, back.header.topology);
      INFO(r.broken_claims(true));
      CHECK(r.passed("execution"));
      CHECK(r.passed("placement"));
      CHECK(r.passed("delivery"));
      ++exported;
    }
  CHECK(exported >= 20);
}
