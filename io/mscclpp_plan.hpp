#pragma once
/// MSCCL++ execution plans (docs/mscclpp.md): the JSON that mscclpp's DSL writes and its
/// executor loads (microsoft/mscclpp at 1f5f065), read into core/mscclpp.hpp's Plan and written
/// back.
///
/// Malformed plans are InputError naming the file and the JSON path of the offending value
/// (`x.json: gpus[3].threadblocks[1].ops[7]: ...`; line:column for JSON syntax): an unknown op
/// or channel type, a missing or mistyped field the executor reads, ids out of range (a gpu, a
/// peer, a channel id beyond the gpu's or the threadblock's channels, a remote buffer id, a
/// semaphore never declared, a barrier id), a buffer index beyond what the executor can address,
/// a pipeline inside a pipeline, sizes beyond the limits; the total size is checked against the
/// memory limit before the plan is built. What the plan does wrong when it runs (a race, a wait
/// nobody signals, a chunk placed twice) is not an error here: core/mscclpp_execution.hpp models
/// it and verify/ reports it as data.

#include <string>
#include <string_view>

#include "core/mscclpp.hpp"

namespace phasecheck::io {

/// Whether `text` (JSON, or the first bytes of it) is an MSCCL++ plan rather than a phasecheck
/// schedule: a top-level object with a "gpus" key and no "format" key before it. Looks at the
/// keys only (no full parse).
bool looks_like_mscclpp_plan(std::string_view text);

mscclpp::Plan parse_mscclpp_plan(std::string_view text, std::string_view source);
/// Reads `path` ("-": standard input) with the input limits of core/files.hpp.
mscclpp::Plan read_mscclpp_plan_file(const std::string& path);

/// The plan as the DSL writes it (keys in its order, indent 2). Deterministic: same plan, same
/// bytes; parse_mscclpp_plan reads it back equal.
std::string mscclpp_plan_to_json(const mscclpp::Plan& plan);

}  // namespace phasecheck::io
