// The MSCCL execution model (core/msccl.hpp): limits before work, and the race check.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/msccl.hpp"
#include "io/msccl_xml.hpp"

using namespace phasecheck;

namespace {

/// `<step>` in one line: type, the slot it reads (srcbuf/srcoff) and writes (dstbuf/dstoff),
/// count and dependency.
std::string step(int s, const std::string& type, const std::string& src, const std::string& dst,
                 const std::string& cnt = "1", int depid = -1, int deps = -1, int hasdep = 0) {
  const auto slot = [](const std::string& x, const char* buf, const char* off) {
    return std::string(buf) + "=\"" + x.substr(0, 1) + "\" " + off + "=\"" + x.substr(1) + "\" ";
  };
  return "<step s=\"" + std::to_string(s) + "\" type=\"" + type + "\" " +
         slot(src, "srcbuf", "srcoff") + slot(dst, "dstbuf", "dstoff") + "cnt=\"" + cnt +
         "\" depid=\"" + std::to_string(depid) + "\" deps=\"" + std::to_string(deps) +
         "\" hasdep=\"" + std::to_string(hasdep) + "\"/>\n";
}

std::string tb(int id, int send, int recv, const std::string& steps) {
  return "<tb id=\"" + std::to_string(id) + "\" send=\"" + std::to_string(send) + "\" recv=\"" +
         std::to_string(recv) + "\" chan=\"0\">\n" + steps + "</tb>\n";
}

std::string gpu(int id, const std::string& chunks, const std::string& tbs) {
  return "<gpu id=\"" + std::to_string(id) + "\" " + chunks + ">\n" + tbs + "</gpu>\n";
}

std::string algo(int ngpus, const std::string& gpus) {
  return "<algo name=\"t\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"" +
         std::to_string(ngpus) + "\" ngpus=\"" + std::to_string(ngpus) +
         "\" coll=\"alltoall\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n" +
         gpus + "</algo>\n";
}

const std::vector<ExecutionFault>& faults(const Schedule& s) { return s.header.imported->faults; }

Schedule lower(const std::string& xml) { return msccl::lower(io::parse_msccl(xml, "t.xml"), "t.xml"); }

/// Runs `f` with the memory limit at `bytes`, then restores it.
template <class F>
void with_memory_limit(std::uint64_t bytes, F f) {
  const Limits saved = limits();
  Limits l = saved;
  l.max_memory_bytes = bytes;
  set_limits(l);
  try {
    f();
  } catch (...) {
    set_limits(saved);
    throw;
  }
  set_limits(saved);
}

/// Gpu 0 reads scratch[0] (a send to gpu 1) in tb 0 and writes it (a receive from gpu 1) in tb 1.
/// Gpu 1 receives, then sends back when `chained`: the write then waits, through gpu 1, for the
/// read; otherwise gpu 1 sends first and nothing orders them.
std::string across_gpus(bool chained) {
  const std::string g1 = chained ? step(0, "r", "i0", "o0") + step(1, "s", "i0", "o0")
                                 : step(0, "s", "i0", "o0") + step(1, "r", "i0", "o0");
  return algo(2, gpu(0, "i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"1\"",
                     tb(0, 1, -1, step(0, "s", "s0", "o1")) + tb(1, -1, 1, step(0, "r", "i0", "s0"))) +
                     gpu(1, "i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\"", tb(0, 0, 0, g1)));
}

/// The explanation of the program's one fault, which must be of `kind`.
std::string only_fault(const Schedule& s, const std::string& kind) {
  REQUIRE(faults(s).size() == 1);
  CHECK(faults(s)[0].kind == kind);
  return faults(s)[0].explanation;
}

bool has_race(const Schedule& s) {
  for (const auto& f : faults(s))
    if (f.kind == "race") return true;
  return false;
}

}  // namespace

TEST_CASE("msccl: a step of cnt=1000000000 beyond its buffers is a fault found before any chunk is tracked") {
  const std::string xml =
      algo(1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"",
                  tb(0, -1, -1, step(0, "cpy", "i0", "o0") + step(1, "cpy", "i0", "o0", "1000000000"))));
  // Tracking its chunks would take 64 GB: under 16 MiB it must not be tried.
  with_memory_limit(std::uint64_t{16} << 20, [&] {
    CHECK(only_fault(lower(xml), "outside buffer") ==
          "gpu 0 tb 0 step 1 (copy) names input[0] and the 999999999 slots after it, beyond the "
          "input buffer of gpu 0 (i_chunks=\"1\")");
  });
}

TEST_CASE("msccl: a step of cnt=1000000000 inside declared buffers is refused before its chunks are tracked, naming the file and the step") {
  const std::string big = "i_chunks=\"1000000000\" o_chunks=\"1000000000\" s_chunks=\"0\"";
  const std::string xml = algo(1, gpu(0, big,
                                      tb(0, -1, -1, step(0, "nop", "i0", "o0", "0")) +
                                          tb(1, -1, -1, step(0, "cpy", "i0", "o0") +
                                                            step(1, "cpy", "i0", "o0", "1000000000"))));
  with_memory_limit(std::uint64_t{1} << 30, [&] {
    CHECK_THROWS_WITH_AS(lower(xml),
                         doctest::Contains("t.xml: the race check up to gpu 0 tb 1 step 1 "
                                           "(cnt=\"1000000000\"; 64 bytes per chunk a step reads "
                                           "or writes) needs 119 GiB, more than the memory limit "
                                           "of 1 GiB (raise it with --max-memory)"),
                         InputError);
  });
}

TEST_CASE("msccl: the steps' own state is charged before the events are built") {
  std::string steps;
  for (int s = 0; s < 100; ++s) steps += step(s, "cpy", "i0", "o0");
  const std::string xml = algo(1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"", tb(0, -1, -1, steps)));
  with_memory_limit(10000, [&] {
    CHECK_THROWS_WITH_AS(lower(xml),
                         "t.xml: the execution model of 100 steps (512 bytes a step) needs 50 KiB, "
                         "more than the memory limit of 9.77 KiB (raise it with --max-memory)",
                         InputError);
  });
}

TEST_CASE("msccl: a chain of dependencies through another gpu orders two steps, without it they race") {
  const Schedule ordered = lower(across_gpus(true));
  CHECK_FALSE(has_race(ordered));
  CHECK(faults(ordered).empty());
  const Schedule racing = lower(across_gpus(false));
  CHECK(only_fault(racing, "race") ==
        "gpu 0: gpu 0 tb 0 step 0 (send to gpu 1) reads it and gpu 0 tb 1 step 0 (receive from "
        "gpu 1) writes it touch scratch[0], and no chain of dependencies orders them: which runs "
        "first depends on timing");
  CHECK(faults(racing)[0].steps == std::vector<StepRef>{{0, 0, 0}, {0, 1, 0}});
}

TEST_CASE("msccl: every access is compared with the last write and the reads since, each racing access counts once") {
  // Three threadblocks write output[0] and nothing orders them: the second races with the
  // first, the third with the second.
  std::string tbs;
  for (int t = 0; t < 3; ++t) tbs += tb(t, -1, -1, step(0, "cpy", "i0", "o0"));
  const Schedule s = lower(algo(1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"", tbs)));
  CHECK(only_fault(s, "race") ==
        "gpu 0: gpu 0 tb 0 step 0 (copy) writes it and gpu 0 tb 1 step 0 (copy) writes it touch "
        "output[0], and no chain of dependencies orders them: which runs first depends on timing "
        "(1 more racing access)");
  // Ordered by depid/deps (tb 1 waits for tb 0, tb 2 for tb 1): no race.
  const std::string chained =
      tb(0, -1, -1, step(0, "cpy", "i0", "o0", "1", -1, -1, 1)) +
      tb(1, -1, -1, step(0, "cpy", "i0", "o0", "1", 0, 0, 1)) +
      tb(2, -1, -1, step(0, "cpy", "i0", "o0", "1", 1, 0, 0));
  CHECK(faults(lower(algo(1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"", chained)))).empty());
}

TEST_CASE("msccl: many steps on one slot: each access meets the last write and the reads since, in memory per step") {
  // Threadblock 0 writes output[0] n times, threadblock 1 reads it n times; a read waits for the
  // write before it (depid/deps), the write after it does not wait for the read: every write
  // but the first races with the read before it.
  const int n = 2000;
  std::string writes, reads;
  for (int k = 0; k < n; ++k) {
    writes += step(k, "cpy", "i0", "o0", "1", -1, -1, 1);
    reads += step(k, "cpy", "o0", "s0", "1", 0, k, 0);
  }
  const std::string xml = algo(
      1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"1\"", tb(0, -1, -1, writes) + tb(1, -1, -1, reads)));
  // 4,000 steps: their state and the chunks' fit in 4 MiB, as the formula says (512 bytes a
  // step, 64 per chunk access).
  with_memory_limit(std::uint64_t{4} << 20, [&] {
    // The events run in this order: w0 w1 r0 w2 r1 w3 r2 ... (a read waits for its write and the
    // read before it). Every read but the last finds a later write as the last one (r_k after
    // w_k+1): n - 1 racing reads; every write from w2 on finds the read two before it since the
    // last write: n - 2 racing writes. The first race is reported, the rest counted.
    CHECK(only_fault(lower(xml), "race") ==
          "gpu 0: gpu 0 tb 0 step 1 (copy) writes it and gpu 0 tb 1 step 0 (copy) reads it touch "
          "output[0], and no chain of dependencies orders them: which runs first depends on "
          "timing (" + std::to_string(2 * n - 4) + " more racing accesses)");
  });
}
