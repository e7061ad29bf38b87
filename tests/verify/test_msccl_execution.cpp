// The checkers of an MSCCL program's execution (verify/msccl_execution.hpp): every fault kind
// with its exact explanation and steps, and the race check's memory, charged before work.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "msccl_builders.hpp"
#include "verify/msccl_execution.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;

namespace {

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

bool has_race(const Schedule& s) {
  for (const auto& f : faults(s))
    if (f.kind == ExecutionFaultKind::race) return true;
  return false;
}

}  // namespace

TEST_CASE("msccl: a step of cnt=1000000000 beyond its buffers is a fault found before any chunk is tracked") {
  const std::string xml =
      algo(1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"",
                  tb(0, -1, -1, step(0, "cpy", "i0", "o0") + step(1, "cpy", "i0", "o0", "1000000000"))));
  // Tracking its chunks would take 64 GB: under 16 MiB it must not be tried.
  with_memory_limit(std::uint64_t{16} << 20, [&] {
    CHECK(only_fault(lower(xml), ExecutionFaultKind::outside_buffer) ==
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

TEST_CASE("msccl: a chain of dependencies through another gpu orders two steps, without it they race") {
  const Schedule ordered = lower(across_gpus(true));
  CHECK_FALSE(has_race(ordered));
  CHECK(faults(ordered).empty());
  const Schedule racing = lower(across_gpus(false));
  CHECK(only_fault(racing, ExecutionFaultKind::race) ==
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
  CHECK(only_fault(s, ExecutionFaultKind::race) ==
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
    CHECK(only_fault(lower(xml), ExecutionFaultKind::race) ==
          "gpu 0: gpu 0 tb 0 step 1 (copy) writes it and gpu 0 tb 1 step 0 (copy) reads it touch "
          "output[0], and no chain of dependencies orders them: which runs first depends on "
          "timing (" + std::to_string(2 * n - 4) + " more racing accesses)");
  });
}

namespace {

/// An alltoall over 2 gpus, 2 chunks per pair: gpu 0 sends its two chunks for gpu 1 from
/// threadblocks 0 and 1, on channel 0 both, or threadblock 1 on channel 1 (and gpu 1 receives
/// the second there).
std::string two_senders(bool one_channel) {
  const std::string k = "i_chunks=\"4\" o_chunks=\"4\" s_chunks=\"0\"";
  const int channel = one_channel ? 0 : 1;
  const std::string gpu0 = tb(0, 1, -1, step(0, "s", "i2", "o0")) +
                           tb(1, 1, -1, step(0, "s", "i3", "o1"), channel) +
                           tb(2, -1, 1, step(0, "r", "i0", "o2", "2")) +
                           tb(3, -1, -1, step(0, "cpy", "i0", "o0", "2"));
  const std::string gpu1 =
      one_channel ? tb(0, 0, 0,
                       step(0, "r", "i2", "o0") + step(1, "r", "i3", "o1") +
                           step(2, "s", "i0", "o2", "2")) +
                        tb(1, -1, -1, step(0, "cpy", "i2", "o2", "2"))
                  : tb(0, 0, 0, step(0, "r", "i2", "o0") + step(1, "s", "i0", "o2", "2")) +
                        tb(1, -1, -1, step(0, "cpy", "i2", "o2", "2")) +
                        tb(2, -1, 0, step(0, "r", "i3", "o1"), 1);
  return algo(2, gpu(0, k, gpu0) + gpu(1, k, gpu1), one_channel ? 1 : 2, 2);
}

}  // namespace

TEST_CASE("msccl execution: two threadblocks of a gpu sending to one peer on one channel share a connection") {
  const Schedule shared = lower(two_senders(true));
  CHECK(only_fault(shared, ExecutionFaultKind::shared_connection) ==
        "gpu 0: threadblocks 0 and 1 both send to gpu 1 on channel 0; they share one "
        "connection, so which of their messages meets which one on the other side depends on "
        "timing (phasecheck pairs them in threadblock order)");
  CHECK(faults(shared)[0].steps == std::vector<StepRef>{{0, 0, 0}, {0, 1, 0}});
  CHECK_FALSE(faults(shared)[0].phase);
  // On two channels they are two connections: no fault, and the program moves its data.
  const Schedule apart = lower(two_senders(false));
  CHECK(faults(apart).empty());
  CHECK(apart.phases.size() > 0);
}

TEST_CASE("msccl execution: two threadblocks of a gpu receiving from one peer on one channel share a connection") {
  // two_senders(true) seen from the other side: gpu 1's receives split over two threadblocks.
  const std::string k = "i_chunks=\"4\" o_chunks=\"4\" s_chunks=\"0\"";
  const std::string xml = algo(
      2,
      gpu(0, k,
          tb(0, 1, 1, step(0, "s", "i2", "o0") + step(1, "s", "i3", "o1") +
                          step(2, "r", "i0", "o2", "2")) +
              tb(1, -1, -1, step(0, "cpy", "i0", "o0", "2"))) +
          gpu(1, k,
              tb(0, 0, 0, step(0, "r", "i2", "o0") + step(1, "s", "i0", "o2", "2")) +
                  tb(1, -1, 0, step(0, "r", "i3", "o1")) +
                  tb(2, -1, -1, step(0, "cpy", "i2", "o2", "2"))),
      1, 2);
  const Schedule s = lower(xml);
  CHECK(only_fault(s, ExecutionFaultKind::shared_connection) ==
        "gpu 1: threadblocks 0 and 1 both receive from gpu 0 on channel 0; they share one "
        "connection, so which of their messages meets which one on the other side depends on "
        "timing (phasecheck pairs them in threadblock order)");
  CHECK(faults(s)[0].steps == std::vector<StepRef>{{1, 0, 0}, {1, 1, 0}});
}


TEST_CASE("msccl execution: a send and the receive it meets moving different counts is a count mismatch") {
  const Schedule s = lower(exchange_2({.send = "i0", .count = "2"}));
  CHECK(only_fault(s, ExecutionFaultKind::count_mismatch) ==
        "gpu 0 tb 0 step 0 sends 2 chunks to gpu 1 on channel 0; that send (number 1 there) "
        "meets gpu 1 tb 0 step 0, which receives 1");
  CHECK(faults(s)[0].steps == std::vector<StepRef>{{0, 0, 0}, {1, 0, 0}});
  // The same counts on both sides: no fault.
  CHECK(faults(lower(exchange_2())).empty());
}


TEST_CASE("msccl execution: a step waiting for a step after which nothing signals is never released") {
  const Schedule s = lower(exchange_2({.copy_waits = true}));
  // It never runs: the count of steps that never run joins the fault that explains them.
  CHECK(only_fault(s, ExecutionFaultKind::never_released) ==
        "gpu 1 tb 1 step 0 waits for gpu 1 tb 0 step 0, but neither that step nor a later one of "
        "threadblock 0 signals (hasdep=\"1\"; a nop never signals): it waits forever (1 step "
        "never runs)");
  CHECK(faults(s)[0].steps == std::vector<StepRef>{{1, 1, 0}, {1, 0, 0}});
  // Released once the receive signals.
  CHECK(faults(lower(exchange_2({.copy_waits = true, .receive_signals = 1}))).empty());
}

TEST_CASE("msccl execution: a receive no send meets is unmatched, and so is everything after it") {
  // Gpu 1 receives twice from gpu 0, which sends once.
  const std::string xml = algo(
      2, gpu(0, k2x2,
             tb(0, 1, -1, step(0, "s", "i1", "o0")) + tb(1, -1, -1, step(0, "cpy", "i0", "o0"))) +
             gpu(1, k2x2,
                 tb(0, -1, 0, step(0, "r", "i0", "o0") + step(1, "r", "i0", "o0") +
                                  step(2, "r", "i0", "o0"))));
  const Schedule s = lower(xml);
  CHECK(only_fault(s, ExecutionFaultKind::unmatched_receive) ==
        "gpu 1 tb 0 step 1 is receive 2 of gpu 1 from gpu 0 on channel 0, but gpu 0 sends only 1 "
        "to gpu 1 there (1 more after it): it waits forever, and so does everything after it (2 "
        "steps never run)");
  CHECK(faults(s)[0].steps == std::vector<StepRef>{{1, 0, 1}});
}

TEST_CASE("msccl execution: two gpus that each receive before they send deadlock, the cycle named") {
  const Schedule s = lower(exchange_2({.receive_first = true}));
  CHECK(only_fault(s, ExecutionFaultKind::deadlock) ==
        "these steps wait for each other in a cycle: gpu 0 tb 0 step 0 (receive from gpu 1) "
        "waits for gpu 1 tb 0 step 1 (send to gpu 0) (the send it receives); gpu 1 tb 0 step 1 "
        "(send to gpu 0) waits for gpu 1 tb 0 step 0 (receive from gpu 0) (earlier in its "
        "threadblock); gpu 1 tb 0 step 0 (receive from gpu 0) waits for gpu 0 tb 0 step 1 (send "
        "to gpu 1) (the send it receives); gpu 0 tb 0 step 1 (send to gpu 1) waits for gpu 0 tb "
        "0 step 0 (receive from gpu 1) (earlier in its threadblock) (4 steps never run; a "
        "connection buffers one message)");
  CHECK(faults(s)[0].steps.size() == 4);
}

TEST_CASE("msccl execution: a step beyond its buffers is a fault that names the phase it lands in") {
  // Gpu 0's self copy writes output[2] of 2.
  const Schedule s = lower(exchange_2({.self_copy_to = "o2"}));
  CHECK(only_fault(s, ExecutionFaultKind::outside_buffer) ==
        "gpu 0 tb 1 step 0 (copy) names output[2], beyond the output buffer of gpu 0 "
        "(o_chunks=\"2\")");
  CHECK(faults(s)[0].phase == std::optional<std::size_t>{0});
}

TEST_CASE("msccl execution: every fault kind has its own name") {
  const std::vector<std::pair<ExecutionFaultKind, std::string>> names = {
      {ExecutionFaultKind::shared_connection, "shared connection"},
      {ExecutionFaultKind::count_mismatch, "count mismatch"},
      {ExecutionFaultKind::unmatched_send, "unmatched send"},
      {ExecutionFaultKind::unmatched_receive, "unmatched receive"},
      {ExecutionFaultKind::never_released, "never released"},
      {ExecutionFaultKind::deadlock, "deadlock"},
      {ExecutionFaultKind::race, "race"},
      {ExecutionFaultKind::outside_buffer, "outside buffer"}};
  for (const auto& [kind, name] : names) CHECK(to_string(kind) == name);
}
