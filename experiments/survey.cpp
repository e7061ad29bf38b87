#include "experiments/survey.hpp"

#include "experiments/instance.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/json.hpp"
#include "schedules/registry.hpp"
#include "verify/gap.hpp"

namespace phasecheck::experiments {
namespace {

SurveyRow survey_one(const schedules::Algorithm& algorithm, const Topology& model,
                     const std::string& machine) {
  SurveyRow row{machine, describe(model), std::string(algorithm.name)};
  const Instance instance = check_instance(algorithm, model, {});
  if (instance.not_applicable) {
    row.not_applicable = instance.not_applicable;
    return row;
  }
  const verify::Report* report = &*instance.report;
  row.contention_free_claimed = instance.contention_free_claimed;
  for (const auto& c : report->checks)
    if (c.verdict == verify::Verdict::fail || c.verdict == verify::Verdict::unknown)
      row.failed += (row.failed.empty() ? "" : ",") + std::string(c.name());
  row.kept = report->broken_claims(row.contention_free_claimed).empty();
  const verify::Counts& n = report->counts;
  const verify::Gap gap = verify::gap(*report);
  row.phases = n.phases;
  row.c1 = n.c1;
  row.bound_c1 = report->bound_c1;
  row.gap_c1 = gap.c1;
  row.c2 = n.c2;
  row.bound_c2 = report->bound_c2;
  row.gap_c2 = gap.c2;
  return row;
}

}  // namespace

Survey survey(const std::vector<std::string>& topology_files) {
  Survey s;
  s.topologies = topology_files;
  std::vector<Topology> models;
  for (const std::string& path : topology_files) {
    models.push_back(io::read_topology_file(path));
    with_source(path, [&] {
      check_ranks(ranks(models.back()), kMaxSurveyRanks, "survey",
                  "it generates and verifies every algorithm; `phasecheck check ALG --topology "
                  "T` checks one on any size");
    });
  }
  for (std::size_t i = 0; i < models.size(); ++i) {
    const std::string name = machine_name(topology_files[i]);
    for (const auto& algorithm : schedules::algorithms()) {
      s.rows.push_back(survey_one(algorithm, models[i], name));
      s.broken |= !s.rows.back().kept;
    }
  }
  return s;
}

}  // namespace phasecheck::experiments
