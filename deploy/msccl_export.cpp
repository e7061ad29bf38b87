#include "deploy/msccl_export.hpp"

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "io/msccl_xml.hpp"
#include "schedules/registry.hpp"
#include "verify/msccl_execution.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::deploy {

MscclExport export_msccl(const Schedule& schedule, const std::string& source,
                         const programs::MscclExportOptions& options) {
  MscclExport out;
  try {
    programs::check_threadblock_room(schedule);  // before the work, with any --channels
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  try {
    out.input =
        verify::verify(schedule, schedule.header.topology, schedules::claims_for(schedule.header));
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  if (out.input.verdict() != Verdict::pass) return out;  // refused

  // A phase table becomes the program a careful implementation runs (core/buffer_lowering.hpp).
  const Schedule program =
      schedule.header.buffers ? schedule : lower_to_buffers(schedule);
  const msccl::Program xml_program = [&] {
    try {
      return programs::to_msccl(program, options);
    } catch (const InputError& e) {  // the runtime's limits, as the program uses them
      throw InputError(source + ": " + e.what());
    }
  }();
  std::string xml = io::msccl_to_xml(xml_program);

  // The XML is what ships: read it back and judge it as any imported file.
  const Schedule back = msccl::lower(io::parse_msccl(xml, "<export>"), "<export>");
  out.read_back = verify::verify(back, back.header.topology);
  if (out.read_back.verdict() != Verdict::pass) {
    out.stage = MscclExport::Stage::self_check_failed;
    return out;
  }
  out.stage = MscclExport::Stage::exported;
  out.xml = std::move(xml);
  for (const msccl::Gpu& g : xml_program.gpus)
    for (const msccl::Threadblock& t : g.threadblocks) out.steps += t.steps.size();
  out.gpus = xml_program.ngpus;
  out.channels = xml_program.nchannels.value_or(0);
  return out;
}

}  // namespace phasecheck::deploy
