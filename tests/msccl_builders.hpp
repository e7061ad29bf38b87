#pragma once
// MSCCL XML in a line per element, for the tests of the execution model (core/msccl.hpp) and its
// checkers (verify/msccl_execution.hpp): read by io/msccl_xml as a file would be.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/limits.hpp"
#include "io/msccl_xml.hpp"
#include "verify/msccl_execution.hpp"

namespace phasecheck::testing {

/// `<step>` in one line: type, the slot it reads (srcbuf/srcoff) and writes (dstbuf/dstoff),
/// count and dependency.
inline std::string step(int s, const std::string& type, const std::string& src,
                        const std::string& dst, const std::string& cnt = "1", int depid = -1,
                        int deps = -1, int hasdep = 0) {
  const auto slot = [](const std::string& x, const char* buf, const char* off) {
    return std::string(buf) + "=\"" + x.substr(0, 1) + "\" " + off + "=\"" + x.substr(1) + "\" ";
  };
  return "<step s=\"" + std::to_string(s) + "\" type=\"" + type + "\" " +
         slot(src, "srcbuf", "srcoff") + slot(dst, "dstbuf", "dstoff") + "cnt=\"" + cnt +
         "\" depid=\"" + std::to_string(depid) + "\" deps=\"" + std::to_string(deps) +
         "\" hasdep=\"" + std::to_string(hasdep) + "\"/>\n";
}

inline std::string tb(int id, int send, int recv, const std::string& steps, int channel = 0) {
  return "<tb id=\"" + std::to_string(id) + "\" send=\"" + std::to_string(send) + "\" recv=\"" +
         std::to_string(recv) + "\" chan=\"" + std::to_string(channel) + "\">\n" + steps +
         "</tb>\n";
}

inline std::string gpu(int id, const std::string& chunks, const std::string& tbs) {
  return "<gpu id=\"" + std::to_string(id) + "\" " + chunks + ">\n" + tbs + "</gpu>\n";
}

/// An out-of-place alltoall of `chunks` chunks per pair.
inline std::string algo(int ngpus, const std::string& gpus, int nchannels = 1, int chunks = 1) {
  return "<algo name=\"t\" proto=\"Simple\" nchannels=\"" + std::to_string(nchannels) +
         "\" nchunksperloop=\"" + std::to_string(ngpus * chunks) + "\" ngpus=\"" +
         std::to_string(ngpus) +
         "\" coll=\"alltoall\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n" +
         gpus + "</algo>\n";
}

/// Two input, two output and no scratch slots: a gpu of a 2-gpu alltoall of one chunk per pair.
inline const std::string k2x2 = "i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\"";

/// A 2-gpu alltoall of one chunk per pair: each gpu copies its own chunk and exchanges the other
/// (gpu 0 sends first, gpu 1 receives first). Correct as it stands; the options break it.
struct Exchange2 {
  std::string send = "i1";          ///< the slot gpu 0's send reads
  std::string count = "1";          ///< that send's cnt
  bool copy_waits = false;          ///< gpu 1's self copy waits (depid/deps) for its receive
  int receive_signals = 0;          ///< hasdep of gpu 1's receive
  bool receive_first = false;       ///< gpu 0 receives before it sends
  std::string self_copy_to = "o0";  ///< the slot gpu 0's self copy writes
};
inline std::string exchange_2(const Exchange2& o = {}) {
  const std::string& k = k2x2;
  const int wait = o.copy_waits ? 0 : -1;
  return algo(
      2, gpu(0, k,
             tb(0, 1, 1,
                o.receive_first ? step(0, "r", "i0", "o1") + step(1, "s", o.send, "o0", o.count)
                                : step(0, "s", o.send, "o0", o.count) + step(1, "r", "i0", "o1")) +
                 tb(1, -1, -1, step(0, "cpy", "i0", o.self_copy_to))) +
             gpu(1, k,
                 tb(0, 0, 0,
                    step(0, "r", "i0", "o0", "1", -1, -1, o.receive_signals) +
                        step(1, "s", "i0", "o1")) +
                     tb(1, -1, -1, step(0, "cpy", "i1", "o1", "1", wait, wait, 0))));
}

inline const std::vector<ExecutionFault>& faults(const Schedule& s) {
  return s.header.imported->faults;
}

/// The program lowered with its faults, as `phasecheck verify t.xml` reads it.
inline Schedule lower(const std::string& xml) {
  return msccl::lower(io::parse_msccl(xml, "t.xml"), "t.xml");
}

/// The explanation of the program's one fault, which must be of `kind`.
inline std::string only_fault(const Schedule& s, ExecutionFaultKind kind) {
  REQUIRE(faults(s).size() == 1);
  CHECK(faults(s)[0].kind == kind);
  return faults(s)[0].explanation;
}

/// Runs `f` with the memory limit at `bytes`, then restores it.
template <class F>
void with_memory_limit(std::uint64_t bytes, F f) {
  const Limits saved = limits();
  Limits l = saved;
  l.max_memory_bytes = bytes;
  set_limits(l);
  try {
    f();
  } catch (...) {
    set_limits(saved);
    throw;
  }
  set_limits(saved);
}

}  // namespace phasecheck::testing
