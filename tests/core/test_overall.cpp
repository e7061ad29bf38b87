// core/verdict.hpp overall(): the one rule over several verdicts. Only a pass passes; nothing run
// is not evaluated, never a pass.

#include <doctest/doctest.h>

#include "core/verdict.hpp"

using namespace phasecheck;

TEST_CASE("overall: fail wins, then unknown, then pass, and nothing evaluated is not a pass") {
  using V = Verdict;
  CHECK(overall({}) == V::not_evaluated);
  CHECK(overall({V::not_evaluated, V::not_evaluated}) == V::not_evaluated);
  CHECK(overall({V::pass}) == V::pass);
  CHECK(overall({V::not_evaluated, V::pass, V::not_evaluated}) == V::pass);
  CHECK(overall({V::pass, V::unknown, V::pass}) == V::unknown);
  CHECK(overall({V::unknown, V::not_evaluated}) == V::unknown);
  CHECK(overall({V::pass, V::unknown, V::fail, V::not_evaluated}) == V::fail);
  CHECK(overall({V::fail}) == V::fail);
}
