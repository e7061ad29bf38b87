// fuzz-gate-manifest: arbitrary bytes as a gate manifest (io/gate_manifest.hpp). The reader only
// reads files, so each input is written to one scratch file per process first. An InputError is
// the expected answer to bad input; a crash, a sanitizer report or any other exception is a
// finding. A manifest it accepts must take new figures (update_gate_figures, `gate --update`) and
// read back with those figures and every other field unchanged.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "core/error.hpp"
#include "finding.hpp"
#include "io/gate_manifest.hpp"

using namespace phasecheck;

namespace {

/// The scratch file, in a directory of its own that is removed at exit.
struct Scratch {
  std::string dir, file;
  Scratch() {
    const char* tmp = std::getenv("TMPDIR");
    dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuzz-gate-manifest-XXXXXX";
    if (!mkdtemp(dir.data())) fuzz::finding("cannot create a scratch directory");
    file = dir + "/manifest.json";
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

void write(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) fuzz::finding("cannot write the scratch file");
}

bool same_except_baseline(const io::GateCase& a, const io::GateCase& b) {
  return a.name == b.name && a.topology == b.topology && a.algorithm == b.algorithm &&
         a.parameters == b.parameters && a.generator == b.generator && a.schedule == b.schedule;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Scratch scratch;
  const std::string& path = scratch.file;
  write(path, fuzz::as_text(data, size));
  io::GateManifest manifest;
  try {
    manifest = io::read_gate_manifest(path);
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("read_gate_manifest threw something other than InputError: ") +
                  e.what());
  }
  // Every other case gets new figures, at the limits of what a manifest may hold.
  std::vector<std::optional<io::Figures>> figures(manifest.cases.size());
  for (std::size_t i = 0; i < figures.size(); i += 2)
    figures[i] = io::Figures{UINT32_MAX - i, i, UINT64_MAX - i};
  try {
    io::update_gate_figures(path, figures);
    const io::GateManifest updated = io::read_gate_manifest(path);
    if (updated.cases.size() != manifest.cases.size())
      fuzz::finding("update_gate_figures changed the number of cases");
    for (std::size_t i = 0; i < figures.size(); ++i) {
      const io::GateCase &before = manifest.cases[i], &after = updated.cases[i];
      if (!same_except_baseline(before, after))
        fuzz::finding("update_gate_figures changed a case beyond its baseline");
      if (figures[i] ? (after.baseline_figures != figures[i] || !after.baseline.empty())
                     : (after.baseline_figures != before.baseline_figures ||
                        after.baseline != before.baseline))
        fuzz::finding("the baseline read back is not the one update_gate_figures wrote");
    }
  } catch (const std::exception& e) {
    fuzz::finding(std::string("a manifest that read cleanly fails after update_gate_figures: ") +
                  e.what());
  }
  return 0;
}
