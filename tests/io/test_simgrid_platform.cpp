#include <doctest/doctest.h>

#include "helpers.hpp"
#include "io/simgrid_platform.hpp"

using namespace phasecheck;

TEST_CASE(
    "SimGrid platform: hosts and routers by our ids, a split-duplex link and a route per cable") {
  const Tree tree({"a", "b"}, {"sw"}, {{"a", "sw"}, {"b", "sw"}});
  const std::string xml = io::simgrid_platform_xml(tree, "100Mbps", "10us");
  CHECK(xml.rfind("<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM "
                  "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">",
                  0) == 0);
  CHECK(xml.find("<zone id=\"tree\" routing=\"Floyd\">") != std::string::npos);
  CHECK(xml.find("<host id=\"h0\" speed=\"1Gf\" />\n    <!-- a -->") != std::string::npos);
  CHECK(xml.find("<router id=\"s0\" />\n    <!-- sw -->") != std::string::npos);
  CHECK(xml.find("<link id=\"cable1\" bandwidth=\"100Mbps\" latency=\"10us\" "
                 "sharing_policy=\"SPLITDUPLEX\" />") != std::string::npos);
  CHECK(xml.find(
            "<route src=\"h1\" dst=\"s0\">\n      <link_ctn id=\"cable1\" direction=\"UP\" />") !=
        std::string::npos);
  CHECK(io::simgrid_hostfile(tree) == "h0\nh1\n");
}

TEST_CASE("SimGrid platform: a hostile machine name stays a comment") {
  const Tree tree({"x-->\"<y&", "b"}, {"s--"}, {{"x-->\"<y&", "s--"}, {"b", "s--"}});
  const std::string xml = io::simgrid_platform_xml(tree, "1Gbps", "1us");
  CHECK(xml.find("<!-- x- ->\"<y& -->") != std::string::npos);
  CHECK(xml.find("<!-- s- - -->") != std::string::npos);
  CHECK(xml.find("-->\"") == std::string::npos);
}

TEST_CASE("SimGrid platform: the same tree gives the same bytes") {
  const Tree tree({"a", "b", "c"}, {"s0", "s1"},
                  {{"a", "s0"}, {"b", "s0"}, {"s0", "s1"}, {"c", "s1"}});
  CHECK(io::simgrid_platform_xml(tree, "1Gbps", "1us") ==
        io::simgrid_platform_xml(tree, "1Gbps", "1us"));
}
