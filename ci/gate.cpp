#include "ci/gate.hpp"

#include <utility>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "io/json.hpp"

namespace phasecheck::ci {

std::size_t GateResult::failed() const {
  std::size_t n = 0;
  for (const auto& c : cases) n += !c.comparison.passed();
  return n;
}

verify::Verdict GateResult::verdict() const {
  return failed() == 0 ? verify::Verdict::pass : verify::Verdict::fail;
}

GateResult run_gate(const std::string& path, const io::GateManifest& manifest,
                    const GateOptions& options, const CaseSource& source, std::ostream* progress) {
  GateResult result{path, {}, options.update};
  std::vector<std::optional<io::Figures>> new_figures;
  std::vector<std::pair<std::string, std::string>> new_baselines;  // path, schedule JSON
  ProgressMeter meter(progress, "gate " + path, "cases", manifest.cases.size());
  for (const io::GateCase& g : manifest.cases) {
    meter.note(g.name);
    // Every problem of a case names the manifest and the case.
    try {
      const Topology model = io::read_topology_file(g.topology);
      Schedule schedule = source.schedule(g, model);
      const Claims claims = source.claims(schedule.header);
      Side after = judge(std::move(schedule), g.name, &model, claims);
      Side before;
      if (g.baseline_figures) {
        before = baseline_figures(*g.baseline_figures, after);
      } else {
        Schedule baseline = io::read_schedule_file(g.baseline);
        const Claims baseline_claims = source.claims(baseline.header);
        before = judge(std::move(baseline), g.baseline, &model, baseline_claims);
      }
      Comparison c = compare(std::move(before), std::move(after), options.allow);
      // A baseline is only ever replaced by a schedule that passes its checks.
      const bool acceptable = c.after.report->verdict() == verify::Verdict::pass;
      if (options.update && !acceptable) {
        new_figures.push_back(std::nullopt);
      } else if (options.update) {
        if (g.baseline_figures) {
          new_figures.push_back(c.after.figures);
        } else {
          new_figures.push_back(std::nullopt);
          new_baselines.push_back({g.baseline, io::schedule_to_json(*c.after.table)});
        }
      }
      result.cases.push_back({g.name, std::move(c)});
    } catch (const InputError& e) {
      meter.finish();
      throw InputError(path + ": case '" + g.name + "': " + e.what());
    }
    meter.advance();
  }
  meter.finish();
  // Written only once every case has run: a bad case leaves every baseline as it was.
  for (const auto& [baseline, text] : new_baselines)
    write_output(baseline, [&](std::ostream& os) { os << text; }, {path});
  if (options.update) io::update_gate_figures(path, new_figures);
  return result;
}

}  // namespace phasecheck::ci
