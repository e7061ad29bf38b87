// report/algorithms_report.hpp: the algorithm listing and its parameters' JSON.

#include <doctest/doctest.h>

#include <array>
#include <string>

#include "report/algorithms_report.hpp"

using namespace phasecheck;

namespace {

constexpr std::array<std::string_view, 2> kCollectives{"alltoall", "allgather"};

const std::array<ParameterSpec, 2>& specs() {
  static const std::array<ParameterSpec, 2> s{
      ParameterSpec{"collective", Choice{kCollectives}, Fixed{"alltoall"}, "what to exchange"},
      ParameterSpec{"radix", UInt{2, RankCount{}}, InWords{"2"}, "the radix r"}};
  return s;
}

}  // namespace

TEST_CASE("parameter_json: a choice with its default, a range up to p with a default in words") {
  CHECK(reports::parameter_json(specs()[0]).dump() ==
        R"({"name":"collective","type":"choice","values":["alltoall","allgather"],)"
        R"("default":"alltoall","help":"what to exchange"})");
  CHECK(reports::parameter_json(specs()[1]).dump() ==
        R"({"name":"radix","type":"unsigned","min":2,"max":"p","default_in_words":"2",)"
        R"("help":"the radix r"})");
}

TEST_CASE("render_algorithms: a row per algorithm, JSON lists the declared parameters") {
  const std::vector<reports::AlgorithmListing> listed{
      {"bruck", "log-phase index", "Bruck et al. 1997", "", false, "collective=alltoall radix=2..p",
       specs()},
      {"ompi-ring", "ring", "coll_base_allgather.c", "Open MPI", false, "collective=allgather", {}}};
  CHECK(reports::render_algorithms(listed, reports::ReportFormat::csv) ==
        "algorithm,parameters,summary,reference\r\n"
        "bruck,collective=alltoall radix=2..p,log-phase index,Bruck et al. 1997\r\n"
        "ompi-ring,collective=allgather,ring,coll_base_allgather.c\r\n");
  const auto j = nlohmann::ordered_json::parse(
      reports::render_algorithms(listed, reports::ReportFormat::json));
  CHECK(j["command"] == "algorithms");
  CHECK(j["algorithms"][0]["name"] == "bruck");
  CHECK(j["algorithms"][0]["parameters"].size() == 2);
  CHECK(j["algorithms"][0]["library"].is_null());  // a paper's algorithm
  CHECK(j["algorithms"][1]["library"] == "Open MPI");
}
