#include "ci/gate.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"

namespace phasecheck::ci {

std::size_t GateResult::failed() const {
  std::size_t n = 0;
  for (const auto& c : cases) n += !c.comparison.passed();
  return n;
}

verify::Verdict GateResult::verdict() const {
  return failed() == 0 ? verify::Verdict::pass : verify::Verdict::fail;
}

std::vector<std::string> check_gate_trust(const std::string& path, const io::GateManifest& manifest,
                                          const GateOptions& options) {
  if (!options.generators) {
    std::string cases;
    for (std::size_t i = 0; i < manifest.cases.size(); ++i)
      if (!manifest.cases[i].generator.empty())
        cases += (cases.empty() ? "" : ", ") + ("cases[" + std::to_string(i) + "] '") +
                 manifest.cases[i].name + "'";
    if (!cases.empty())
      throw InputError(path + ": --no-generators: " + cases +
                       " run a generator (a command the manifest gives); no case was run (take "
                       "the manifest from the base branch to run its generators)");
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::vector<std::string> roots{real_location(parent.empty() ? "." : parent.string())};
  for (const std::string& root : options.allow_outside) {
    const std::string real = real_location(root);
    if (!std::filesystem::is_directory(real))
      throw InputError("--allow-outside " + root + ": not a directory");
    roots.push_back(real);
  }
  for (std::size_t i = 0; i < manifest.cases.size(); ++i) {
    const io::GateCase& g = manifest.cases[i];
    for (const io::GatePath& p : io::case_paths(g, i)) {
      const std::string where = path + ": " + p.field + " (case '" + g.name + "')";
      const std::string real = with_source(where, [&] { return real_location(p.path); });
      if (std::none_of(roots.begin(), roots.end(),
                       [&](const std::string& root) { return lies_within(real, root); }))
        throw InputError(where + ": " + p.path + (real == p.path ? " is" : " leads to " + real + ",") +
                         " outside the manifest's directory " + roots.front() +
                         " (--allow-outside DIR admits a directory that holds it)");
    }
  }
  return roots;
}

GateResult run_gate(const std::string& path, const io::GateManifest& manifest,
                    const GateOptions& options, const CaseSource& source, std::ostream* progress) {
  const std::vector<std::string> roots = check_gate_trust(path, manifest, options);
  GateResult result{path, {}, options.update};
  std::vector<std::optional<io::Figures>> new_figures;
  struct NewBaseline {
    std::string name, path, json;
  };
  std::vector<NewBaseline> new_baselines;
  ProgressMeter meter(progress, "gate " + path, "cases", manifest.cases.size());
  for (const io::GateCase& g : manifest.cases) {
    meter.note(g.name);
    // Every problem of a case names the manifest and the case. (The meter erases its line as the
    // error leaves this function.)
    with_source(path + ": case '" + g.name + "'", [&] {
      const Topology model = io::read_topology_file(g.topology);
      Schedule schedule = source.schedule(g, model);
      const Claims claims = source.claims(schedule.header);
      Side after = judge(std::move(schedule), g.name, &model, claims);
      Side before;
      if (g.baseline_figures) {
        before = baseline_figures(*g.baseline_figures, after);
      } else {
        Schedule baseline = pipeline::read_schedule_file(g.baseline);
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
          new_baselines.push_back({g.name, g.baseline, io::schedule_to_json(*c.after.table)});
        }
      }
      result.cases.push_back({g.name, std::move(c)});
    });
    meter.advance();
  }
  meter.finish();
  // Written only once every case has run: a bad case leaves every baseline as it was.
  for (const NewBaseline& b : new_baselines) {
    with_source(path + ": case '" + b.name + "'", [&] {
      write_output(
          b.path, [&](std::ostream& os) { os << b.json; }, {path}, roots);
    });
  }
  if (options.update) io::update_gate_figures(path, new_figures, roots);
  return result;
}

}  // namespace phasecheck::ci
