#pragma once
/// What `phasecheck export` does whatever the format (deploy/msccl_export.hpp,
/// deploy/mscclpp_export.hpp): the schedule is verified first and refused unless every check
/// passes; a phase table becomes the buffer program a careful implementation runs
/// (core/buffer_lowering.hpp); the program is written in the format; and the file, which is what
/// ships, is read back, lowered and verified again like any imported file.

#include <functional>
#include <string>

#include "core/schedule.hpp"
#include "core/verdict.hpp"
#include "verify/report.hpp"

namespace phasecheck::deploy {

struct VerifiedExport {
  enum class Stage {
    refused,            ///< the schedule does not verify: nothing made
    self_check_failed,  ///< the file made from it does not verify (a bug of the exporter)
    exported,           ///< made, read back and verified
  };
  Stage stage = Stage::refused;
  verify::Report input;      ///< the schedule's verification
  verify::Report read_back;  ///< the file's, lowered again (not refused)
  std::string text;          ///< the file (exported only)

  /// pass when exported; fail otherwise.
  Verdict verdict() const { return stage == Stage::exported ? Verdict::pass : Verdict::fail; }
};

/// Runs the export into `out`: `write` makes the file's text from the buffer program (an
/// InputError it throws, such as a runtime's limit, is prefixed with `source`); `read_back`
/// reads that text again as a schedule to verify (header.imported set). Throws InputError
/// (prefixed with `source`) when the schedule cannot be verified at all.
void export_verified(const Schedule& schedule, const std::string& source, VerifiedExport& out,
                     const std::function<std::string(const Schedule& program)>& write,
                     const std::function<Schedule(const std::string& text)>& read_back);

}  // namespace phasecheck::deploy
