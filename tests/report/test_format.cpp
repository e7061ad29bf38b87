#include <doctest/doctest.h>

#include <stdexcept>

#include "report/format.hpp"

using namespace phasecheck;
using reports::ReportFormat;

TEST_CASE("report format: every format's name reads back as that format") {
  int named = 0;
  for (const ReportFormat format : {ReportFormat::text, ReportFormat::json, ReportFormat::junit,
                                    ReportFormat::markdown, ReportFormat::csv}) {
    CHECK(reports::report_format_named(reports::to_string(format)) == format);
    ++named;
  }
  CHECK(named == 5);
  CHECK(reports::to_string(ReportFormat::markdown) == "markdown");
  CHECK_FALSE(reports::report_format_named("yaml"));
  CHECK_FALSE(reports::report_format_named("JSON"));
}

TEST_CASE("report format: supports is membership in a renderer's list") {
  constexpr ReportFormat text_or_json[] = {ReportFormat::text, ReportFormat::json};
  CHECK(reports::supports(text_or_json, ReportFormat::json));
  CHECK_FALSE(reports::supports(text_or_json, ReportFormat::junit));
  CHECK_FALSE(reports::supports({}, ReportFormat::text));
}

TEST_CASE("report format: a renderer handed a format it does not declare is an internal error") {
  CHECK_THROWS_WITH_AS(reports::unsupported(ReportFormat::csv, "render_lint"),
                       "render_lint does not render --report csv", std::logic_error);
}
