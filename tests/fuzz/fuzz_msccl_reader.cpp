// fuzz-msccl-reader: arbitrary bytes into the MSCCL XML reader (io/msccl_xml.hpp), then through
// everything a file meets behind `verify`, `lint msccl` and `export msccl`: the lint, the execution
// model (core/msccl.hpp lower) and, when it executes, the verifier. An InputError is the expected
// answer to bad input; a crash, a sanitizer report, a hang or any other exception is a finding.
// What the reader accepts must survive a round trip: written in the <step> dialect and read again
// it is the same program (up to line numbers and dialect, and its names as the writer makes them:
// one line of inert text, core/escape.hpp), and writing that gives the same bytes.

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "finding.hpp"
#include "io/msccl_xml.hpp"
#include "verify/msccl_execution.hpp"
#include "verify/msccl_lint.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

/// The program without what a round trip may change: where it was read from, its dialect, and
/// its names, protocol and collective, which the writer passes through text_escape and xml_chars
/// (both idempotent: a name written once is written again unchanged).
msccl::Program normalized(msccl::Program p) {
  const auto as_written = [](const std::string& s) { return xml_chars(text_escape(s)); };
  p.line = 0;
  p.dialect = msccl::Dialect::step;
  p.name = as_written(p.name);
  p.coll = as_written(p.coll);
  if (p.protocol) p.protocol = as_written(*p.protocol);
  for (msccl::Gpu& g : p.gpus) {
    g.line = 0;
    for (msccl::Threadblock& t : g.threadblocks) {
      t.line = 0;
      for (msccl::Step& s : t.steps) s.line = 0;
    }
  }
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  msccl::Program program;
  try {
    program = io::parse_msccl(fuzz::as_text(data, size), "fuzz.xml");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parse_msccl threw something other than InputError: ") + e.what());
  }

  const std::string written = io::msccl_to_xml(program);
  try {
    const msccl::Program back = io::parse_msccl(written, "written.xml");
    if (normalized(back) != normalized(program))
      fuzz::finding("the program read back from what the writer wrote differs", written);
    if (io::msccl_to_xml(back) != written)
      fuzz::finding("writing the program read back gives other bytes", written);
  } catch (const InputError& e) {
    fuzz::finding(std::string("the reader refuses what the writer wrote: ") + e.what(), written);
  }

  try {
    const std::vector<verify::LintInput> inputs{{"fuzz.xml", program}, {"again.xml", program}};
    const verify::LintReport lint = verify::lint(inputs);
    const bool selectable = program.inplace.value_or(false) || program.outofplace.value_or(false);
    if (verify::size_range(program) && selectable && lint.errors() == 0)
      fuzz::finding("a file linted with itself claims its sizes twice but lint found no overlap",
                    written);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("lint threw: ") + e.what(), written);
  }

  Schedule lowered;
  try {
    lowered = msccl::lower(program, "fuzz.xml");
  } catch (const InputError&) {
    return 0;  // a collective or a reduction the model does not take, buffers too small, ...
  } catch (const std::exception& e) {
    fuzz::finding(std::string("lower threw something other than InputError: ") + e.what(), written);
  }
  try {
    const verify::Report report = verify::verify(lowered, lowered.header.topology);
    if (!lowered.header.imported->faults.empty() && report.verdict() == verify::Verdict::pass)
      fuzz::finding("a program whose execution faults verified", written);
  } catch (const InputError&) {
    return 0;  // a limit of the checkers
  } catch (const std::exception& e) {
    fuzz::finding(std::string("verify threw something other than InputError: ") + e.what(),
                  written);
  }
  return 0;
}
