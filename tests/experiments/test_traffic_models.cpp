#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "core/error.hpp"
#include "experiments/traffic_models.hpp"

using namespace phasecheck;
using experiments::MoeOptions;

namespace {

std::string error_of(std::string_view model, const experiments::TrafficModelOptions& options) {
  try {
    experiments::build_traffic_model(model, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string moe_error(const MoeOptions& options) {
  try {
    experiments::moe_traffic(options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::uint64_t row_sum(const Traffic& t, Rank s) {
  const auto row = t.row(s);
  return std::accumulate(row.begin(), row.end(), std::uint64_t{0});
}

std::vector<std::uint64_t> column_sums(const Traffic& t) {
  std::vector<std::uint64_t> sums(t.ranks, 0);
  for (Rank s = 0; s < t.ranks; ++s)
    for (Rank d = 0; d < t.ranks; ++d) sums[d] += t.count(s, d);
  return sums;
}

/// The busiest receiver's elements over the average receiver's.
double receive_skew(const Traffic& t) {
  const auto sums = column_sums(t);
  const double mean =
      static_cast<double>(std::accumulate(sums.begin(), sums.end(), std::uint64_t{0})) /
      static_cast<double>(sums.size());
  return static_cast<double>(*std::max_element(sums.begin(), sums.end())) / mean;
}

}  // namespace

TEST_CASE("moe: every rank sends T x K picks - with dedup at most that and at least T") {
  int runs = 0;
  for (const Rank p : {1u, 2u, 3u, 4u, 7u})
    for (const std::uint64_t per_rank : {1u, 3u})
      for (const double zipf : {0.0, 1.5}) {
        const MoeOptions o{.ranks = p,
                           .experts = p * per_rank,
                           .top_k = std::min<std::uint64_t>(2, p * per_rank),
                           .tokens = 50,
                           .hidden = 7168,
                           .zipf = zipf,
                           .seed = 9};
        CAPTURE(p);
        CAPTURE(per_rank);
        CAPTURE(zipf);
        const Traffic dispatch = experiments::moe_traffic(o);
        MoeOptions dedup_options = o;
        dedup_options.dedup = true;
        const Traffic dedup = experiments::moe_traffic(dedup_options);
        CHECK(dispatch.element_bytes == 7168);
        for (Rank r = 0; r < p; ++r) {
          CHECK(row_sum(dispatch, r) == o.tokens * o.top_k);
          CHECK(row_sum(dedup, r) <= o.tokens * o.top_k);
          CHECK(row_sum(dedup, r) >= o.tokens);
          for (Rank d = 0; d < p; ++d) {
            CHECK(dedup.count(r, d) <= o.tokens);
            CHECK(dedup.count(r, d) <= dispatch.count(r, d));
          }
        }
        ++runs;
      }
  CHECK(runs == 20);
}

TEST_CASE("moe: a token's K experts are distinct - however skewed the popularity") {
  // One expert per rank: K distinct experts are K distinct ranks. With K = E every token reaches
  // every rank once; with K < E dedup changes nothing. A repeated expert would break both.
  int runs = 0;
  for (const double zipf : {0.0, 1.5, 16.0}) {
    CAPTURE(zipf);
    const Traffic all = experiments::moe_traffic(
        {.ranks = 6, .experts = 6, .top_k = 6, .tokens = 40, .hidden = 1, .zipf = zipf});
    CHECK(all == uniform_traffic(6, 40, 1));
    MoeOptions o{
        .ranks = 8, .experts = 8, .top_k = 5, .tokens = 200, .hidden = 1, .zipf = zipf, .seed = 4};
    const Traffic dispatch = experiments::moe_traffic(o);
    o.dedup = true;
    CHECK(experiments::moe_traffic(o) == dispatch);
    ++runs;
  }
  CHECK(runs == 3);
}

TEST_CASE("moe: Zipf 1.5 concentrates the traffic on hot receivers - Zipf 0 spreads it") {
  const MoeOptions uniform{.ranks = 16, .experts = 64, .top_k = 4, .tokens = 2000, .hidden = 1};
  MoeOptions skewed = uniform;
  skewed.zipf = 1.5;
  const double flat = receive_skew(experiments::moe_traffic(uniform));
  const double hot = receive_skew(experiments::moe_traffic(skewed));
  CAPTURE(flat);
  CAPTURE(hot);
  CHECK(flat < 1.1);
  CHECK(hot > 2.0);
}

TEST_CASE("moe: the hot experts are placed at random by the seed - not all on rank 0") {
  std::set<Rank> hottest;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto sums = column_sums(experiments::moe_traffic({.ranks = 8,
                                                            .experts = 32,
                                                            .top_k = 1,
                                                            .tokens = 500,
                                                            .hidden = 1,
                                                            .zipf = 3,
                                                            .seed = seed}));
    hottest.insert(static_cast<Rank>(std::max_element(sums.begin(), sums.end()) - sums.begin()));
  }
  CHECK(hottest.size() > 3);
}

TEST_CASE("moe: same seed same matrix - another seed another - combine is the transpose") {
  MoeOptions o{
      .ranks = 5, .experts = 10, .top_k = 3, .tokens = 100, .hidden = 2, .zipf = 1.2, .seed = 7};
  const Traffic dispatch = experiments::moe_traffic(o);
  CHECK(experiments::moe_traffic(o) == dispatch);
  o.combine = true;
  const Traffic combine = experiments::moe_traffic(o);
  CHECK(combine == transpose(dispatch));
  CHECK(combine != dispatch);
  o.combine = false;
  o.seed = 8;
  CHECK(experiments::moe_traffic(o) != dispatch);
}

TEST_CASE("moe: options out of range are refused before any work - naming the option") {
  const MoeOptions ok{.ranks = 4, .experts = 8, .top_k = 2, .tokens = 10, .hidden = 4};
  CHECK(moe_error(ok) == "no error");
  auto with = [&](auto change) {
    MoeOptions o = ok;
    change(o);
    return moe_error(o);
  };
  CHECK(with([](MoeOptions& o) { o.experts = 10; }) ==
        "moe: --experts 10 is not a multiple of --ranks 4 (each rank holds E / P experts)");
  CHECK(with([](MoeOptions& o) { o.experts = 2; }) ==
        "moe: --experts 2 is not a multiple of --ranks 4 (each rank holds E / P experts)");
  CHECK(with([](MoeOptions& o) { o.top_k = 9; }) == "moe: --top-k 9 is not in 1..8");
  CHECK(with([](MoeOptions& o) { o.top_k = 0; }) == "moe: --top-k 0 is not in 1..8");
  CHECK(with([](MoeOptions& o) { o.ranks = 0; }) == "moe: --ranks 0 is not in 1..1048576");
  CHECK(with([](MoeOptions& o) { o.hidden = 0; }) == "moe: --hidden 0 is not in 1..1073741824");
  CHECK(with([](MoeOptions& o) { o.zipf = -1; }) == "moe: --zipf -1 is not in 0..16");
  CHECK(with([](MoeOptions& o) { o.tokens = std::uint64_t{1} << 31; }) ==
        "moe: --tokens x --top-k is more than an MPI count holds (2147483647)");
  CHECK(with([](MoeOptions& o) {
          o.tokens = std::uint64_t{1} << 29;
          o.hidden = std::uint64_t{1} << 30;
        }) == "moe: each rank would send --tokens x --top-k x --hidden bytes, more than 1 PiB");
  CHECK(with([](MoeOptions& o) {
          o.ranks = 8;
          o.experts = 8;
          o.tokens = std::uint64_t{1} << 29;
        }).starts_with("moe: --ranks x --tokens x --top-k is more than 1073741824 picks"));
}

TEST_CASE("random: zero fraction 0 - 1 and between - values in 1..max_count") {
  const auto zeros = [](const Traffic& t) {
    return std::count(t.counts.begin(), t.counts.end(), std::uint64_t{0});
  };
  const Traffic full = experiments::random_traffic({.ranks = 16, .max_count = 5});
  CHECK(zeros(full) == 0);
  CHECK(*std::max_element(full.counts.begin(), full.counts.end()) == 5);
  CHECK(experiments::random_traffic({.ranks = 16, .max_count = 5, .zero_fraction = 1}) ==
        zero_traffic(16));
  const Traffic half =
      experiments::random_traffic({.ranks = 16, .max_count = 5, .zero_fraction = 0.5});
  CHECK(zeros(half) > 100);
  CHECK(zeros(half) < 156);
  CHECK(experiments::random_traffic({.ranks = 16, .max_count = 5, .seed = 2}) != full);
  CHECK(experiments::random_traffic({.ranks = 16, .max_count = 5}) == full);
}

TEST_CASE("traffic models: the table refuses unknown models and options that do not apply") {
  experiments::TrafficModelOptions o;
  o.ranks = 3;
  CHECK(experiments::build_traffic_model("uniform", o) == uniform_traffic(3, 1, 1));
  o.count = 4;
  o.element_bytes = 8;
  CHECK(experiments::build_traffic_model("uniform", o) == uniform_traffic(3, 4, 8));
  CHECK(error_of("unifrom", o)
            .starts_with("unknown traffic model 'unifrom'; did you mean 'uniform'?"));
  o.seed = 2;
  CHECK(error_of("uniform", o) ==
        "uniform: --seed does not apply (uniform takes --ranks --count --element-bytes)");
  CHECK(error_of("moe", {.ranks = 4}) ==
        "moe: --experts is required (moe takes --ranks --experts --top-k --tokens --hidden, "
        "optionally --zipf --seed --dedup --combine)");
  CHECK(error_of("random", {.ranks = 0}) == "random: --ranks 0 is not in 1..1048576");
  CHECK(error_of("random", {.ranks = 2, .zero_fraction = 1.5}) ==
        "random: --zero-fraction 1.5 is not in 0..1");
  CHECK(error_of("uniform", {.ranks = 2, .count = std::uint64_t{1} << 31}) ==
        "uniform: --count 2147483648 is not in 0..2147483647");
  CHECK(error_of("file", {.ranks = 2}).starts_with("file: --ranks does not apply"));
}

TEST_CASE("inverse_power: i^-s as std::pow computes it - to a few ulps - without std::pow") {
  int runs = 0;
  for (const std::uint64_t i : {1ull, 2ull, 3ull, 7ull, 64ull, 1000ull, 4194304ull})
    for (const double s : {0.0, 0.5, 1.0, 1.2, 1.5, 3.0, 16.0}) {
      CAPTURE(i);
      CAPTURE(s);
      const double exact = std::pow(static_cast<double>(i), -s);
      CHECK(std::abs(experiments::inverse_power(i, s) - exact) <= 1e-14 * exact);
      ++runs;
    }
  CHECK(runs == 49);
  CHECK(experiments::inverse_power(5, 0) == 1);
  CHECK(experiments::inverse_power(1, 7) == 1);
}

TEST_CASE("moe: the picks follow successive weighted draws without replacement") {
  // One expert per rank, so a column counts one expert's picks. Zipf 1 over 4 experts: weights
  // 1, 1/2, 1/3, 1/4. A token includes expert a with probability w_a / W (picked first) plus, for
  // K = 2, the sum over b != a of w_b / W x w_a / (W - w_b) (picked second). The columns, sorted,
  // must be those probabilities x ranks x tokens, within 1%.
  const std::vector<double> w = {1, 1.0 / 2, 1.0 / 3, 1.0 / 4};
  const double total = w[0] + w[1] + w[2] + w[3];
  int runs = 0;
  for (const std::uint64_t k : {1u, 2u}) {
    CAPTURE(k);
    const MoeOptions o{
        .ranks = 4, .experts = 4, .top_k = k, .tokens = 50000, .hidden = 1, .zipf = 1, .seed = 11};
    auto sums = column_sums(experiments::moe_traffic(o));
    std::sort(sums.rbegin(), sums.rend());
    for (std::size_t a = 0; a < 4; ++a) {
      double include = w[a] / total;
      if (k == 2)
        for (std::size_t b = 0; b < 4; ++b)
          if (b != a) include += w[b] / total * w[a] / (total - w[b]);
      const double expected = include * 4 * 50000;
      CAPTURE(a);
      CHECK(std::abs(static_cast<double>(sums[a]) - expected) < 0.01 * expected);
      ++runs;
    }
  }
  CHECK(runs == 8);
}
