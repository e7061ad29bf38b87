#include "deploy/verified_export.hpp"

#include "core/buffer_lowering.hpp"
#include "core/files.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::deploy {

void export_verified(const Schedule& schedule, const std::string& source, VerifiedExport& out,
                     const std::function<std::string(const Schedule& program)>& write,
                     const std::function<Schedule(const std::string& text)>& read_back) {
  out.stage = VerifiedExport::Stage::refused;
  out.input = with_source(source, [&] {
    return verify::verify(schedule, schedule.header.topology,
                          schedules::claims_for(schedule.header));
  });
  if (out.input.verdict() != Verdict::pass) return;

  // A phase table becomes the program a careful implementation runs (core/buffer_lowering.hpp).
  const Schedule program = schedule.header.buffers ? schedule : lower_to_buffers(schedule);
  std::string text = with_source(source, [&] { return write(program); });

  // The file is what ships: read it back and judge it as any imported file.
  const Schedule back = read_back(text);
  out.read_back = verify::verify(back, back.header.topology);
  if (out.read_back.verdict() != Verdict::pass) {
    out.stage = VerifiedExport::Stage::self_check_failed;
    return;
  }
  out.stage = VerifiedExport::Stage::exported;
  out.text = std::move(text);
}

}  // namespace phasecheck::deploy
