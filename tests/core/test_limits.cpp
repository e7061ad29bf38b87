#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/schedule.hpp"

using namespace phasecheck;

TEST_CASE("limits: checked arithmetic and the memory check name the figure and the option") {
  CHECK(checked_mul(std::uint64_t(1) << 32, std::uint64_t(1) << 31) == std::uint64_t(1) << 63);
  CHECK_FALSE(checked_mul(std::uint64_t(1) << 32, std::uint64_t(1) << 32));
  CHECK_FALSE(checked_add(std::numeric_limits<std::uint64_t>::max(), 1));
  CHECK_FALSE(checked_mul(std::nullopt, 1));
  CHECK(format_bytes(300) == "300 bytes");
  CHECK(format_bytes(std::uint64_t(3) << 29) == "1.5 GiB");
  Limits l;
  l.max_memory_bytes = std::uint64_t(1) << 30;
  const Limits saved = limits();
  set_limits(l);
  CHECK_NOTHROW(check_memory(std::uint64_t(1) << 30, "x"));
  CHECK_THROWS_WITH_AS(check_memory((std::uint64_t(1) << 30) + 1, "the state"),
                       "the state needs 1 GiB, more than the memory limit of 1 GiB (raise it with "
                       "--max-memory)",
                       InputError);
  CHECK_THROWS_WITH_AS(check_memory(std::nullopt, "the state"),
                       doctest::Contains("needs more than 2^64 bytes"), InputError);
  CHECK_THROWS_WITH_AS(check_ranks(13, 12, "optimal", "use bounds"),
                       "optimal works on at most 12 ranks; this machine has 13 (use bounds)",
                       InputError);
  for (double bad : {0.0, -1.0, 1e9, std::nan(""), HUGE_VAL})
    CHECK_THROWS_AS(check_timeout(bad), InputError);
  set_limits(saved);
}

TEST_CASE("limits: a phase is charged as it grows, before it allocates, and numbers 2^32 blocks") {
  const Limits saved = limits();
  Limits l;
  l.max_memory_bytes = std::uint64_t(1) << 20;
  set_limits(l);
  Phase phase;
  // 65,536 transfers of one block: 28 bytes each, 1.75 MiB.
  CHECK_THROWS_WITH_AS(phase.reserve(65536, 65536),
                       "one phase of 65536 transfers (65536 blocks) needs 1.75 MiB, more than the "
                       "memory limit of 1 MiB (raise it with --max-memory)",
                       InputError);
  CHECK(phase.empty());
  // Grown one transfer at a time: refused at the growth that would pass the limit.
  std::uint64_t added = 0;
  CHECK_THROWS_WITH_AS(
      [&] {
        for (;; ++added) phase.add(0, 1, Block{0, 1, 0});
      }(),
      doctest::Contains("more than the memory limit of 1 MiB"), InputError);
  CHECK(added >= 16384);
  CHECK(added < 65536);
  CHECK(phase.size() == added);
  // In bulk: charged once for the whole append, before it allocates.
  Phase bulk;
  const std::vector<DirectTransfer> pairs(65536, DirectTransfer{0, 1});
  CHECK_THROWS_WITH_AS(bulk.add_direct(pairs, Collective::alltoall),
                       doctest::Contains("more than the memory limit of 1 MiB"), InputError);
  CHECK(bulk.empty());
  l.max_memory_bytes = std::uint64_t(1) << 50;
  set_limits(l);
  CHECK_THROWS_WITH_AS(Phase().reserve(1, std::uint64_t(1) << 32),
                       "one phase carries at most 2^32 - 1 blocks; this one 4294967296",
                       InputError);
  set_limits(saved);
}
