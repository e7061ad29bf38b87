#include "io/gate_manifest.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json_common.hpp"

namespace phasecheck::io {
namespace {

detail::Json load(const std::string& path) {
  return detail::parse_document(read_input(path), path);
}

std::string resolve(const std::string& manifest, const std::string& relative) {
  const std::filesystem::path p(relative);
  if (p.is_absolute()) return relative;
  return (std::filesystem::path(manifest).parent_path() / p).lexically_normal().string();
}

}  // namespace

std::vector<GatePath> case_paths(const GateCase& c, std::size_t index) {
  const std::string at = "cases[" + std::to_string(index) + "].";
  std::vector<GatePath> paths{{at + "topology", c.topology}};
  if (!c.schedule.empty()) paths.push_back({at + "schedule", c.schedule});
  if (!c.baseline_figures) paths.push_back({at + "baseline", c.baseline});
  return paths;
}

GateManifest read_gate_manifest(const std::string& path) {
  const detail::Json doc = load(path);
  const detail::Field root{doc, path, ""};
  root.expect_object({"format", "cases"});
  if (root.at("format").string() != kGateFormat)
    root.at("format").fail(std::string("expected \"") + kGateFormat + "\"");
  GateManifest m;
  m.path = path;
  const detail::Field cases = root.at("cases");
  if (cases.array().empty()) cases.fail("no cases: a gate that checks nothing cannot fail");
  for (std::size_t i = 0; i < cases.array().size(); ++i) {
    const detail::Field c = cases.at(i);
    c.expect_object(
        {"name", "topology", "algorithm", "parameters", "generator", "schedule", "baseline"});
    GateCase g;
    g.name = c.at("name").string();
    for (const GateCase& earlier : m.cases)
      if (earlier.name == g.name) c.at("name").fail("the name '" + g.name + "' is used twice");
    g.topology = resolve(path, c.at("topology").string());
    const int sources = int(c.has("algorithm")) + int(c.has("generator")) + int(c.has("schedule"));
    if (sources != 1) c.fail("exactly one of \"algorithm\", \"generator\" and \"schedule\"");
    if (c.has("algorithm")) g.algorithm = c.at("algorithm").string();
    if (c.has("generator")) g.generator = c.at("generator").string();
    if (c.has("schedule")) g.schedule = resolve(path, c.at("schedule").string());
    if (c.has("parameters")) {
      if (!c.has("algorithm")) c.at("parameters").fail("parameters are for \"algorithm\" cases");
      const detail::Field p = c.at("parameters");
      if (!p.value.is_object()) p.fail("expected an object of strings");
      for (const auto& [key, value] : p.value.items()) g.parameters.set(key, p.at(key).string());
    }
    const detail::Field b = c.at("baseline");
    if (b.value.is_string()) {
      g.baseline = resolve(path, b.string());
    } else {
      b.expect_object({"phases", "C1", "C2"});
      g.baseline_figures = Figures{b.at("phases").uint(UINT32_MAX), b.at("C1").uint(UINT32_MAX),
                                   b.at("C2").uint(UINT64_MAX)};
    }
    m.cases.push_back(std::move(g));
  }
  return m;
}

void update_gate_figures(const std::string& path,
                         const std::vector<std::optional<Figures>>& figures,
                         const std::vector<std::string>& roots) {
  // The manifest was read and checked by read_gate_manifest; this keeps its key order.
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(read_input(path));
  } catch (const nlohmann::json::exception& e) {
    detail::throw_syntax_error(path, e);
  }
  auto& cases = doc.at("cases");
  for (std::size_t i = 0; i < cases.size() && i < figures.size(); ++i)
    if (figures[i])
      cases[i]["baseline"] = {
          {"phases", figures[i]->phases}, {"C1", figures[i]->c1}, {"C2", figures[i]->c2}};
  write_output(
      path, [&](std::ostream& os) { os << detail::dump(doc, 2) << "\n"; }, {}, roots);
}

}  // namespace phasecheck::io
