// The congestion meter on links with capacity (verify/congestion.hpp): loads count blocks per unit
// of capacity.
#include <doctest/doctest.h>

#include "verify/congestion.hpp"

using namespace phasecheck;

TEST_CASE("congestion: a link of capacity c carrying b blocks has load ceil(b / c)") {
  // a = b with 2 parallel links; 3 hosts on a, 3 on b.
  const Topology t = Graph({"a", "b"}, {{"a", "b"}}, {3, 3}, {2});
  verify::CongestionMeter meter(t, true);
  Phase two, three;
  two.add(0, 3, Block{0, 3});
  two.add(1, 4, Block{1, 4});
  three.add(0, 3, Block{0, 3});
  three.add(1, 4, Block{1, 4});
  three.add(2, 5, Block{2, 5});
  meter.consume(two);
  meter.consume(three);
  REQUIRE(meter.loads().size() == 2);
  CHECK(meter.loads()[0].max == 1);  // 2 blocks on a -> b of capacity 2; 1 on each host link
  CHECK(meter.loads()[1].max == 2);  // 3 blocks on a -> b
  CHECK(link_name(t, meter.loads()[1].busiest) == "a -> b");
  CHECK(meter.sum_of_max() == 3);
  // 6 block-hops over 3 + 3 host links each way (12) and the router link (2 x 2): 6 / 16.
  CHECK(meter.loads()[0].mean == doctest::Approx(6.0 / 16.0));

  const Topology unit = Graph({"a", "b"}, {{"a", "b"}}, {3, 3});
  verify::CongestionMeter plain(unit, true);
  plain.consume(three);
  CHECK(plain.loads()[0].max == 3);
}
