#include <doctest/doctest.h>

#include "report/table.hpp"

using namespace phasecheck;

namespace {

TableReport sample(Verdict verdict) {
  Table t({{"name", "name"}, {"phases", "phases"}});
  t.add({std::string("shift"), std::uint64_t{7}});
  nlohmann::ordered_json facts;
  facts["max_ranks"] = 5;
  return {"whatif sample", verdict, "a heading", std::move(facts), std::move(t), "a note\n"};
}

}  // namespace

TEST_CASE("table report: text is heading, table, notes, csv the table alone") {
  const TableReport r = sample(Verdict::pass);
  CHECK(reports::render(r, reports::ReportFormat::text) ==
        "a heading\n\nname   phases\nshift  7\na note\n");
  CHECK(reports::render(r, reports::ReportFormat::csv) == "name,phases\r\nshift,7\r\n");
}

TEST_CASE("table report: json carries the command, the verdict, the facts, then the rows") {
  const auto j = nlohmann::ordered_json::parse(
      reports::render(sample(Verdict::not_evaluated), reports::ReportFormat::json));
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"command", "verdict", "max_ranks", "rows"});
  CHECK(j["command"] == "whatif sample");
  CHECK(j["verdict"] == "not-evaluated");  // never "pass" for a table nothing verified
  CHECK(j["rows"][0]["phases"] == 7);
}

TEST_CASE("table report: a format it does not declare is a caller's bug, not a report") {
  CHECK_FALSE(reports::supports(reports::table_formats, reports::ReportFormat::junit));
  CHECK_THROWS_AS(reports::render(sample(Verdict::pass), reports::ReportFormat::junit),
                  std::logic_error);
}
